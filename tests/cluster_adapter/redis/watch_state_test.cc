// What `millrace watch` keeps in the trace store between restarts: saved and loaded back per
// run, replaced as a whole, and present in stores made before it existed (migration 3).

#include <gtest/gtest.h>

#include "cluster_adapter/redis/watch_state.h"
#include "tests/data/store_fixture.h"
#include "tests/support/older_store.h"

namespace millrace::cluster_adapter {
namespace {

using data::testing::TempDir;

std::int64_t add_run(data::TraceStore& store, const std::string& name) {
  data::Run run;
  run.name = name;
  run.source = data::RunSource::kReal;
  return store.add_run(run, {}, {});
}

TEST(WatchState, IsLoadedBackPerRunAndReplacedAsAWhole) {
  TempDir dir;
  data::TraceStore store = data::TraceStore::open(dir.file("t.db"));
  const std::int64_t one = add_run(store, "one");
  const std::int64_t two = add_run(store, "two");
  EXPECT_EQ(load_watch_state(store, one), WatchState{});
  const WatchState first{{{"w0", 10}, {"w1", 12}}, {{"48063/16320", {"w0", 5}}, {"32063/16320", {"", 7}}}};
  const WatchState second{{{"w9", 99}}, {}};
  save_watch_state(store, one, first);
  save_watch_state(store, two, second);
  EXPECT_EQ(load_watch_state(store, one), first);
  EXPECT_EQ(load_watch_state(store, two), second);
  const WatchState later{{{"w1", 20}}, {{"16063/16320", {"w1", 15}}}};
  save_watch_state(store, one, later);
  EXPECT_EQ(load_watch_state(store, one), later);
  EXPECT_EQ(load_watch_state(store, two), second);
}

TEST(WatchState, AStoreMadeBeforeItExistsIsMigratedKeepingItsRuns) {
  TempDir dir;
  std::int64_t run = 0;
  // As a store of version 2, made before the watch tables (migration 3) and what came after.
  data::TraceStore store = test_support::reopened_as_older(
      dir.file("old.db"),
      std::string("DROP TABLE watch_heartbeats; DROP TABLE watch_holds; DROP TABLE attempt_trees; DROP TABLE "
                  "run_sessions; DROP TABLE staged_attempt_sources; DROP TABLE staged_imports; DROP TABLE "
                  "item_requests; DROP TABLE comparison_experiments; ") +
          test_support::kUndoMigration14 + test_support::kUndoMigration12 + test_support::kUndoMigration11 +
              "PRAGMA user_version = 2",
      [&](data::TraceStore& fresh) { run = add_run(fresh, "before"); });
  EXPECT_EQ(store.schema_version(), data::TraceStore::current_schema_version());
  EXPECT_EQ(store.run(run).name, "before");
  const WatchState state{{{"w0", 1}}, {{"63/64", {"w0", 1}}}};
  save_watch_state(store, run, state);
  EXPECT_EQ(load_watch_state(store, run), state);
}

}  // namespace
}  // namespace millrace::cluster_adapter
