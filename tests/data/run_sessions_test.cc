// The records of who runs a real run (data/run_sessions.h): an attempt's tree comes back with the
// file its exit status goes to while it has no attempts row, and a store from before migration 7
// keeps its trees, with no status file.
#include "data/run_sessions.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "data/schema_sql.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::TempDir;

std::int64_t add_two_item_run(TraceStore& store) {
  std::vector<WorkItem> items(2);
  items[0].id = "0-9";
  items[1].id = "10-19";
  return store.add_run(Run{}, items, {});
}

AttemptTreeRecord tree(const std::string& item, int session, const std::string& status_file) {
  AttemptTreeRecord t;
  t.item_id = item;
  t.number = 1;
  t.session = session;
  t.worker = "local-0";
  t.pid = 4321;
  t.pgid = 4321;
  t.pid_start = 77;
  t.boot_id = "boot";
  t.tag = "tag.1";
  t.status_file = status_file;
  t.started = 1'000;
  return t;
}

TEST(RunSessions, AnUnfinishedTreeComesBackWithItsStatusFileUntilItsAttemptIsRecorded) {
  TempDir dir;
  TraceStore store = TraceStore::open(dir.file("s.db"));
  const std::int64_t run_id = add_two_item_run(store);
  RunSessions sessions(store, run_id);
  sessions.add_tree(tree("0-9", 1, "/logs/0-9.1.status"));
  sessions.add_tree(tree("10-19", 1, "/logs/10-19.1.status"));
  AttemptTreeRecord later = tree("10-19", 2, "/logs/10-19.2.status");  // another session's
  later.number = 2;
  sessions.add_tree(later);

  std::vector<AttemptTreeRecord> left = sessions.unfinished_trees(1);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].item_id, "0-9");
  EXPECT_EQ(left[0].status_file, "/logs/0-9.1.status");
  EXPECT_EQ(left[1].status_file, "/logs/10-19.1.status");
  EXPECT_EQ(left[1].pid_start, 77);
  EXPECT_EQ(left[1].started, 1'000);

  Attempt done;
  done.item_id = "0-9";
  done.number = 1;
  store.add_attempts(run_id, {done});
  left = sessions.unfinished_trees(1);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].item_id, "10-19");
}

TEST(RunSessions, TreesRecordedBeforeMigration7HaveNoStatusFile) {
  TempDir dir;
  const std::string path = dir.file("v6.db");
  std::string sql = kSchemaSql;
  sql = sql.substr(0, sql.find("\n-- migration 7"));
  sql += "; PRAGMA user_version = 6;"
         "INSERT INTO runs VALUES (1, 'r', 'real', 'units', '', '', '{}', 0, 0);"
         "INSERT INTO items (run_id, position, id, type, payload, priority, submit_at_us, predicted_us) "
         "VALUES (1, 0, '0-9', 'range', '', 0, 0, 0);"
         "INSERT INTO attempt_trees VALUES (1, '0-9', 1, 1, 'local-0', 5, 5, 9, 'boot', 'tag.1', '', 1000);";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);

  TraceStore store = TraceStore::open(path);
  EXPECT_EQ(store.schema_version(), TraceStore::current_schema_version());
  std::vector<AttemptTreeRecord> left = RunSessions(store, 1).unfinished_trees(1);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].pid, 5);
  EXPECT_EQ(left[0].status_file, "");
  EXPECT_EQ(left[0].started, 1'000);
}

}  // namespace
}  // namespace millrace::data
