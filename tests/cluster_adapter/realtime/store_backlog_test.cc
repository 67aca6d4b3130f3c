// The live run's store writes: kept in memory, in order, while another connection holds the
// store's write lock, written once it is free; a write failing for another reason is dropped
// and reported once.
#include "cluster_adapter/realtime/store_backlog.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "data/error.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

class StoreBacklogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("millrace-backlog-" + std::to_string(getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
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
    fs::remove_all(dir);
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

}  // namespace
}  // namespace millrace::cluster_adapter
