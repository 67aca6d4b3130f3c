// The live run's store writes: kept in memory, in order, while another connection holds the
// store's write lock, written once it is free; a write failing for another reason is dropped
// and reported once. How far behind the store is (unwritten attempts, the oldest write's wait,
// the last error, redacted) is shown as JSON and Prometheus gauges.
#include "cluster_adapter/realtime/store_backlog.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_adapter/realtime/backlog_status.h"
#include "data/error.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

class StoreBacklogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = scratch_.path();
    path = (dir / "s.db").string();
    store.emplace(data::TraceStore::open(path));
    store->set_busy_timeout(10);
    data::Run run;
    run.name = "r";
    data::WorkItem item;
    item.id = "a";
    store->add_run(run, {item}, {});
  }
  void TearDown() override {
    store.reset();
  }
  // Another connection's write lock, as another process would hold it.
  void lock() {
    ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  void unlock() {
    sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
  }
  static data::Attempt attempt(int number) {
    data::Attempt a;
    a.item_id = "a";
    a.number = number;
    a.outcome = data::Outcome::kFailed;
    a.exit_code = number;
    a.failure_reason = "exit";
    return a;
  }

  test_support::ScratchDir scratch_;
  fs::path dir;
  std::string path;
  std::optional<data::TraceStore> store;
  sqlite3* holder = nullptr;
};

TEST_F(StoreBacklogTest, WritesWaitInOrderWhileTheStoreIsLockedAndAreWrittenOnceItIsFree) {
  std::ostringstream notes;
  StoreBacklog writes(*store, &notes);
  lock();
  for (int n = 1; n <= 3; ++n) {
    writes.add([n](data::TraceStore& s) { s.add_attempts(1, {attempt(n)}); });
  }
  EXPECT_EQ(writes.pending(), 3u);
  EXPECT_EQ(store->count_rows("attempts"), 0);
  EXPECT_NE(notes.str().find(path + " is locked by another process"), std::string::npos) << notes.str();
  unlock();
  writes.drain();
  EXPECT_EQ(writes.pending(), 0u);
  std::vector<data::Attempt> written = store->attempts(1);
  ASSERT_EQ(written.size(), 3u);
  for (int n = 1; n <= 3; ++n) EXPECT_EQ(written[n - 1].number, n);
  EXPECT_NE(notes.str().find(path + " is free again; records written"), std::string::npos) << notes.str();
}

TEST_F(StoreBacklogTest, AWriteThatFailsForAnotherReasonIsDroppedAndReported) {
  StoreBacklog writes(*store);
  EXPECT_THROW(writes.add([](data::TraceStore& s) { s.add_attempts(99, {attempt(1)}); }), data::Error);
  EXPECT_EQ(writes.pending(), 0u);
  writes.add([](data::TraceStore& s) { s.add_attempts(1, {attempt(1)}); });
  EXPECT_EQ(store->count_rows("attempts"), 1);
}

TEST_F(StoreBacklogTest, ItsStateCountsTheUnwrittenAttemptsTheOldestWaitAndTheLastErrorRedacted) {
  // A store whose path holds a URL with a password: the error that names it must not show it.
  const std::string secret_dir = dir.string() + "/https://user:hunter2@db.example";
  fs::create_directories(secret_dir);
  const std::string secret_path = secret_dir + "/s.db";
  ASSERT_NE(secret_path.find("https://user:hunter2@db.example/"), std::string::npos) << secret_path;
  data::TraceStore secret_store = data::TraceStore::open(secret_path);
  secret_store.set_busy_timeout(10);
  data::WorkItem item;
  item.id = "a";
  secret_store.add_run(data::Run{}, {item}, {});
  StoreBacklog writes(secret_store);
  EXPECT_EQ(writes.state().writes, 0u);
  EXPECT_EQ(writes.state().last_error, "");

  path = secret_path;
  lock();
  writes.add([](data::TraceStore& s) { s.add_attempts(1, {attempt(1)}); }, 1);
  writes.add([](data::TraceStore& s) { s.add_attempts(1, {attempt(2), attempt(3)}); }, 2);
  writes.add([](data::TraceStore&) {});  // a write of no attempt (a heartbeat, say)
  usleep(2'000);
  BacklogState state = writes.state();
  EXPECT_EQ(state.writes, 3u);
  EXPECT_EQ(state.attempts, 3);
  EXPECT_GE(state.oldest_age, 2'000);
  EXPECT_NE(state.last_error.find("locked"), std::string::npos) << state.last_error;
  EXPECT_EQ(state.last_error.find("hunter2"), std::string::npos) << state.last_error;

  unlock();
  writes.drain();
  state = writes.state();
  EXPECT_EQ(state.writes, 0u);
  EXPECT_EQ(state.attempts, 0);
  EXPECT_EQ(state.oldest_age, 0);
  EXPECT_NE(state.last_error, "");  // the last error stays on show
  EXPECT_EQ(secret_store.count_rows("attempts"), 3);
}

TEST(BacklogStatus, ShowsTheBacklogAsJsonAndPrometheusGauges) {
  BacklogState state;
  state.writes = 4;
  state.attempts = 3;
  state.oldest_age = 2'500'000;
  state.last_error = "s.db: database is \"locked\"";
  nlohmann::json json = to_json(state);
  EXPECT_EQ(json, nlohmann::json::parse(R"({"unwritten_attempts": 3, "queued_writes": 4, "oldest_queued_s": 2.5,
                                            "last_error": "s.db: database is \"locked\""})"));
  PrometheusWriter out;
  write_metrics(out, state);
  const std::string text = out.text();
  EXPECT_NE(text.find("\nmillrace_store_unwritten_attempts 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nmillrace_store_queued_writes 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nmillrace_store_oldest_queued_seconds 2.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nmillrace_store_last_error_info{error=\"s.db: database is \\\"locked\\\"\"} 1\n"),
            std::string::npos)
      << text;

  PrometheusWriter quiet;
  write_metrics(quiet, BacklogState{});
  EXPECT_EQ(quiet.text().find("last_error"), std::string::npos) << quiet.text();
  EXPECT_TRUE(to_json(BacklogState{})["last_error"].is_null());
}

}  // namespace
}  // namespace millrace::cluster_adapter
