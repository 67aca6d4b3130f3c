#include "cluster_adapter/realtime/run_recorder.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/scratch_dir.h"
#include "tests/support/work_items.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

// An attempt on the one local worker.
data::Attempt attempt(const std::string& item, int number, data::Outcome outcome, data::Micros start,
                      data::Micros end, const std::string& reason = "") {
  return test_support::attempt(item, number, "local-0", outcome, start, end, reason);
}

std::vector<data::WorkItem> plan() {
  std::vector<data::WorkItem> items(3);
  const char* ids[] = {"r0", "r1", "r2"};
  for (int i = 0; i < 3; ++i) {
    items[i].id = ids[i];
    items[i].range = data::Range{i * 10, 10};
    items[i].predicted = (i + 1) * data::kMicrosPerSecond;
  }
  return items;
}

class RunRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path = scratch_.file("recorder.db");
    store.emplace(data::TraceStore::open(path.string()));
    data::Run run;
    run.name = "real";
    run.source = data::RunSource::kReal;
    run_id = store->add_run(run, items, {});
  }
  void TearDown() override { store.reset(); }
  test_support::ScratchDir scratch_;
  fs::path path;
  std::vector<data::WorkItem> items = plan();
  std::optional<data::TraceStore> store;
  std::int64_t run_id = 0;
};

TEST_F(RunRecorderTest, RecordsFinishedAttemptsAtOnceAndIgnoresRunningOnes) {
  StoreBacklog writes(*store);
  RunRecorder recorder(writes, run_id, items, {});
  recorder.observe(attempt("r0", 1, data::Outcome::kRunning, 0, 0));
  EXPECT_TRUE(store->attempts(run_id).empty());
  recorder.observe(attempt("r0", 1, data::Outcome::kFailed, 0, 500'000, "exit"));
  recorder.observe(attempt("r0", 2, data::Outcome::kSucceeded, 600'000, 2'000'000));
  auto recorded = store->attempts(run_id);
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[1], attempt("r0", 2, data::Outcome::kSucceeded, 600'000, 2'000'000));
  EXPECT_EQ(recorder.remaining_predicted(), 5 * data::kMicrosPerSecond);
}

TEST_F(RunRecorderTest, MetricsCombineTheStatusWithObservedDurations) {
  StoreBacklog writes(*store);
  RunRecorder recorder(writes, run_id, items, {attempt("r1", 1, data::Outcome::kSucceeded, 0, 2'000'000)});
  EXPECT_EQ(recorder.remaining_predicted(), 4 * data::kMicrosPerSecond);
  recorder.observe(attempt("r0", 1, data::Outcome::kCancelled, 0, 300'000, "cancelled"));
  scheduler::StatusReport status;
  status.num_items = 3;
  status.num_remain = 2;
  status.num_succeeded = 1;
  status.jobs_in_progress = {"29/10"};
  status.workers = {scheduler::WorkerStatus{"local-0", true, "29/10", 2'300'000, 1, 1}};
  RunMetrics metrics = recorder.metrics(status, 2);
  EXPECT_EQ(metrics.items_total, 3);
  EXPECT_EQ(metrics.items_remaining, 2);
  EXPECT_EQ(metrics.in_flight, 1);
  EXPECT_EQ(metrics.attempts_failed, 1);
  EXPECT_EQ(metrics.attempt_durations.count(), 2);
  EXPECT_EQ(metrics.attempt_durations.sum(), 2'300'000);
  EXPECT_EQ(metrics.worker_busy.at("local-0"), 2'300'000);
  EXPECT_EQ(store->attempts(run_id).size(), 1u);
  ASSERT_TRUE(metrics.eta);
  // r0 and r2 (1 s + 3 s) over 2 slots, but no sooner than r2 alone.
  EXPECT_EQ(metrics.eta->expected, 3 * data::kMicrosPerSecond);
}

TEST_F(RunRecorderTest, ItemsGivenUpLeaveThePredictedWork) {
  StoreBacklog writes(*store);
  RunRecorder recorder(writes, run_id, items, {});
  scheduler::StatusReport status;
  status.jobs_failed = {scheduler::FailedJob{"r2", "29/10", "local-0", 3, "exit"}};
  recorder.settle_given_up(status);
  recorder.settle_given_up(status);
  EXPECT_EQ(recorder.remaining_predicted(), 3 * data::kMicrosPerSecond);
}

TEST_F(RunRecorderTest, ResumeKeepsSucceededItemsAndQueuesTheRestWithTheirAttemptCounts) {
  scheduler::RetryPolicy retry;
  retry.max_attempts = 2;
  std::vector<data::Attempt> recorded = {
      attempt("r0", 1, data::Outcome::kSucceeded, 0, 1),
      attempt("r1", 1, data::Outcome::kCancelled, 0, 1, "cancelled"),
      attempt("r1", 2, data::Outcome::kFailed, 0, 1, "exit"),
      attempt("r2", 1, data::Outcome::kFailed, 0, 1, "exit"),
      attempt("r2", 2, data::Outcome::kFailed, 0, 1, "timeout"),
  };
  scheduler::SchedulerSnapshot snapshot = resume_snapshot(items, recorded, retry);
  ASSERT_EQ(snapshot.items.size(), 3u);
  EXPECT_EQ(snapshot.items[0].state, scheduler::ItemState::kSucceeded);
  EXPECT_EQ(snapshot.items[1].state, scheduler::ItemState::kWaiting);
  EXPECT_EQ(snapshot.items[1].attempts, 2);
  EXPECT_EQ(snapshot.items[1].cancelled, 1);
  EXPECT_EQ(snapshot.items[2].state, scheduler::ItemState::kFailed);
  EXPECT_TRUE(snapshot.in_flight.empty());
}

}  // namespace
}  // namespace millrace::cluster_adapter
