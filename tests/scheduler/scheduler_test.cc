#include "scheduler/scheduler.h"

#include <gtest/gtest.h>

#include "data/error.h"
#include "data/run_summary.h"
#include "tests/support/manual_cluster.h"
#include "tests/support/work_items.h"

namespace millrace::scheduler {
namespace {

using test_support::ManualClock;
using test_support::ManualCluster;
using test_support::ranges;

SchedulerOptions pool(int workers) {
  SchedulerOptions options;
  options.params.workers = workers;
  return options;
}

TEST(Scheduler, FixedPoolSubmitsOneItemPerWorkerInPlanOrder) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(5), pool(2), cluster, clock);
  core.start();
  ASSERT_EQ(cluster.submitted.size(), 2u);
  EXPECT_EQ(cluster.submitted[0].item_id(), "r0");
  EXPECT_EQ(cluster.submitted[0].worker, "w000");
  EXPECT_EQ(cluster.submitted[1].item_id(), "r1");
  EXPECT_EQ(cluster.submitted[1].worker, "w001");
  cluster.start(cluster.submitted[1].handle, "w001");
  cluster.succeed(cluster.submitted[1].handle);
  ASSERT_EQ(cluster.submitted.size(), 3u);
  EXPECT_EQ(cluster.submitted[2].item_id(), "r2");
  EXPECT_EQ(cluster.submitted[2].worker, "w001");
  EXPECT_EQ(cluster.submitted[0].worker, "w000") << "a submission's worker stays valid for the whole run";
}

// A cluster that keeps its state of each attempt in the scheduler's flight record (as the
// simulated cluster does): the record is handed with the submission, found by handle while the
// attempt runs, its room as the cluster left it, and gone once the end is reported.
TEST(Scheduler, AClusterSharingTheFlightsFindsItsStateOfEachAttemptUntilItsEndIsReported) {
  struct Kept {
    std::uint64_t tag = 0;
    int slot = -1;
  };
  struct SharingCluster : ManualCluster {
    using ManualCluster::ManualCluster;
    void share_flights(Flights& shared) override { flights = &shared; }
    void submit(const Submission& submission) override {
      ManualCluster::submit(submission);
      ASSERT_NE(submission.flight, nullptr);
      EXPECT_EQ(submission.flight, flights->find(submission.handle));
      submission.flight->cluster.emplace<Kept>(Kept{1000 + submission.handle, static_cast<int>(submission.index)});
    }
    Flights* flights = nullptr;
  };
  ManualClock clock;
  SharingCluster cluster(clock);
  Scheduler core(ranges(3), pool(2), cluster, clock);
  ASSERT_NE(cluster.flights, nullptr) << "offered before the first submission";
  core.start();
  ASSERT_EQ(cluster.submitted.size(), 2u);
  clock.advance(5);
  cluster.start(2, "w001");
  const Flight* second = cluster.flights->find(2);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->item, 1u);
  EXPECT_EQ(second->started, 5);
  EXPECT_EQ(second->cluster.as<Kept>().tag, 1002u);
  EXPECT_EQ(second->cluster.as<Kept>().slot, 1);
  cluster.succeed(2);  // item r2 goes to w001 under handle 3
  EXPECT_EQ(cluster.flights->find(2), nullptr);
  ASSERT_NE(cluster.flights->find(3), nullptr);
  EXPECT_EQ(cluster.flights->find(3)->cluster.as<Kept>().tag, 1003u);
  EXPECT_EQ(cluster.flights->find(1)->cluster.as<Kept>().tag, 1001u) << "the others keep theirs";
  cluster.fail(1, "exit");
  EXPECT_EQ(cluster.flights->find(1), nullptr);
  EXPECT_EQ(cluster.flights->size(), 2u) << "handle 3 and item r0's retry";
}

// On a plan of plain range items (ids derived from the ranges), a submission gives its item back
// whole, and a retried attempt keeps its number, exit code and reason beside the plain ones.
TEST(Scheduler, SubmissionsGiveTheirPlainItemBackAndRetriesKeepTheirDetail) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items(2);
  for (int i = 0; i < 2; ++i) {
    items[i].range = data::Range{i * 10, 10};
    items[i].id = items[i].range->end_count();
  }
  SchedulerOptions options = pool(1);
  options.retry.max_attempts = 2;
  Scheduler core(items, options, cluster, clock);
  ASSERT_TRUE(core.plan().all_plain());
  core.start();
  ASSERT_EQ(cluster.submitted.size(), 1u);
  EXPECT_EQ(cluster.submitted[0].item(), items[0]);
  EXPECT_EQ(cluster.submitted[0].item_id(), "9/10");
  cluster.start(cluster.submitted[0].handle, "w000");
  cluster.fail(cluster.submitted[0].handle, "exit");
  ASSERT_EQ(cluster.submitted.size(), 2u);
  EXPECT_EQ(cluster.submitted[1].item(), items[0]);
  EXPECT_EQ(cluster.submitted[1].attempt, 2);
  cluster.start(cluster.submitted[1].handle, "w000");
  cluster.succeed(cluster.submitted[1].handle);
  ASSERT_EQ(cluster.submitted.size(), 3u);
  EXPECT_EQ(cluster.submitted[2].item(), items[1]);
  cluster.start(cluster.submitted[2].handle, "w000");
  cluster.succeed(cluster.submitted[2].handle);
  const std::vector<data::Attempt> attempts = core.attempts();
  ASSERT_EQ(attempts.size(), 3u);
  EXPECT_EQ(attempts[0].item_id, "9/10");
  EXPECT_EQ(attempts[0].number, 1);
  EXPECT_EQ(attempts[0].outcome, data::Outcome::kFailed);
  EXPECT_EQ(attempts[0].failure_reason, "exit");
  EXPECT_EQ(attempts[0].exit_code, 1);
  EXPECT_EQ(attempts[1].number, 2);
  EXPECT_EQ(attempts[1].outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(attempts[1].failure_reason, "");
  EXPECT_EQ(attempts[2].item_id, "19/10");
  EXPECT_EQ(attempts[2].number, 1);
  EXPECT_EQ(attempts[2].exit_code, 0);
}

// Work time is kept for the attempts that report one, a reported 0 included, and summed for the
// run summary; the other attempts have none.
TEST(Scheduler, KeepsTheWorkTimeOfTheAttemptsThatReportOne) {
  ManualClock clock;
  ManualCluster cluster(clock);
  SchedulerOptions options = pool(1);
  options.retry.max_attempts = 2;
  const std::vector<data::WorkItem> items = ranges(4);
  Scheduler core(items, options, cluster, clock);
  core.start();
  cluster.succeed(cluster.submitted[0].handle, 3 * data::kMicrosPerSecond);
  cluster.fail(cluster.submitted[1].handle, "exit");
  cluster.succeed(cluster.submitted[2].handle, 0);  // the retry of r1
  cluster.succeed(cluster.submitted[3].handle);
  cluster.succeed(cluster.submitted[4].handle, 5 * data::kMicrosPerSecond);
  const std::vector<data::Attempt> attempts = core.attempts();
  ASSERT_EQ(attempts.size(), 5u);
  EXPECT_EQ(attempts[0].work_time, 3 * data::kMicrosPerSecond);
  EXPECT_EQ(attempts[1].work_time, std::nullopt);
  EXPECT_EQ(attempts[2].work_time, 0);
  EXPECT_EQ(attempts[2].number, 2);
  EXPECT_EQ(attempts[3].work_time, std::nullopt);
  EXPECT_EQ(attempts[4].work_time, 5 * data::kMicrosPerSecond);
  EXPECT_EQ(core.work_time(), 8 * data::kMicrosPerSecond);
  EXPECT_EQ(data::summarize(items, attempts).work_time, 8 * data::kMicrosPerSecond);
}

TEST(Scheduler, UnknownPolicyNameIsAnErrorListingTheKnownOnes) {
  ManualClock clock;
  ManualCluster cluster(clock);
  SchedulerOptions options;
  options.policy = "round-robin";
  try {
    Scheduler core(ranges(2), options, cluster, clock);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("round-robin"), std::string::npos) << what;
    EXPECT_NE(what.find("(known: fixed-pool, partial, autoscale, job-per-item)"), std::string::npos) << what;
  }
}

TEST(Scheduler, CycleIsRejectedWithTheItemsOnTheCycleNamed) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(4);
  items[1].depends_on = {"r0"};
  items[2].depends_on = {"r1"};
  items[0].depends_on = {"r2"};
  SchedulerOptions options = pool(2);
  options.plan_name = "plan.json";
  try {
    Scheduler core(items, options, cluster, clock);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "plan.json");
    EXPECT_EQ(e.problem(), "dependency cycle: r0 -> r1 -> r2 -> r0");
  }
  EXPECT_TRUE(cluster.submitted.empty());
}

TEST(Scheduler, DanglingDependencyIsRejectedNamingBothItems) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(2);
  items[1].depends_on = {"verify"};
  EXPECT_THROW(
      {
        try {
          Scheduler core(items, pool(1), cluster, clock);
        } catch (const data::Error& e) {
          EXPECT_EQ(e.input(), "plan");
          EXPECT_EQ(e.problem(), "item 'r1' depends on unknown item 'verify'");
          throw;
        }
      },
      data::Error);
}

TEST(Scheduler, CriticalPathIsTheLongestPredictedChain) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(4);
  items[0].predicted = 10;
  items[1].predicted = 3;
  items[2].predicted = 4;
  items[3].predicted = 1;
  items[3].depends_on = {"r0", "r1", "r2"};
  items[2].depends_on = {"r1"};
  Scheduler core(items, pool(4), cluster, clock);
  EXPECT_EQ(core.graph().critical_path(), 11);
  ASSERT_EQ(core.graph().critical_items().size(), 2u);
  EXPECT_EQ(core.graph().critical_items()[0], 0u);
  EXPECT_EQ(core.graph().critical_items()[1], 3u);
}

TEST(Scheduler, DependencyIsSubmittedOnlyAfterAllPredecessorsSucceed) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(3);
  items[0].depends_on = {"r1", "r2"};
  Scheduler core(items, pool(3), cluster, clock);
  core.start();
  ASSERT_EQ(cluster.submitted.size(), 2u);
  EXPECT_EQ(cluster.submitted[0].item_id(), "r1");
  cluster.succeed(cluster.submitted[0].handle);
  EXPECT_EQ(cluster.submitted.size(), 2u);
  cluster.succeed(cluster.submitted[1].handle);
  ASSERT_EQ(cluster.submitted.size(), 3u);
  EXPECT_EQ(cluster.submitted[2].item_id(), "r0");
}

TEST(Scheduler, ExhaustedItemBlocksItsDependentsAndOthersCarryOn) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(3);
  items[1].depends_on = {"r0"};
  SchedulerOptions options = pool(1);
  options.retry.max_attempts = 1;
  Scheduler core(items, options, cluster, clock);
  core.start();
  cluster.fail(cluster.submitted[0].handle, "exit");
  ASSERT_EQ(cluster.submitted.size(), 2u);
  EXPECT_EQ(cluster.submitted[1].item_id(), "r2");
  cluster.succeed(cluster.submitted[1].handle);
  EXPECT_TRUE(core.finished());
  EXPECT_TRUE(core.run_failed());
  EXPECT_EQ(core.state(1), ItemState::kBlocked);
  StatusReport status = core.status();
  ASSERT_EQ(status.jobs_failed.size(), 2u);
  EXPECT_EQ(status.jobs_failed[0].reason, "exit");
  EXPECT_EQ(status.jobs_failed[1].reason, "dependency failed");
}

TEST(Scheduler, ReportOptionKeepsTheRunSucceededWhenAnItemExhausts) {
  ManualClock clock;
  ManualCluster cluster(clock);
  SchedulerOptions options = pool(1);
  options.retry.max_attempts = 1;
  options.on_exhausted = OnExhausted::kReport;
  Scheduler core(ranges(2), options, cluster, clock);
  core.start();
  cluster.fail(cluster.submitted[0].handle, "exit");
  cluster.succeed(cluster.submitted[1].handle);
  EXPECT_TRUE(core.finished());
  EXPECT_FALSE(core.run_failed());
  EXPECT_EQ(core.status().jobs_failed.size(), 1u);
}

TEST(Scheduler, RetryWaitsForExponentialBackoffAndRecordsEveryAttempt) {
  ManualClock clock;
  ManualCluster cluster(clock);
  SchedulerOptions options = pool(1);
  options.retry.max_attempts = 3;
  options.retry.backoff = 10;
  Scheduler core(ranges(1), options, cluster, clock);
  core.start();
  cluster.fail(cluster.submitted[0].handle, "exit");
  clock.advance(9);
  EXPECT_EQ(cluster.submitted.size(), 1u);
  clock.advance(10);
  ASSERT_EQ(cluster.submitted.size(), 2u);
  EXPECT_EQ(cluster.submitted[1].attempt, 2);
  cluster.fail(cluster.submitted[1].handle, "timeout");
  clock.advance(29);
  EXPECT_EQ(cluster.submitted.size(), 2u);
  clock.advance(30);
  ASSERT_EQ(cluster.submitted.size(), 3u);
  cluster.succeed(cluster.submitted[2].handle);
  ASSERT_EQ(core.attempts().size(), 3u);
  EXPECT_EQ(core.attempts()[0].outcome, data::Outcome::kFailed);
  EXPECT_EQ(core.attempts()[1].failure_reason, "timeout");
  EXPECT_EQ(core.attempts()[2].outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(core.attempts()[2].number, 3);
}

TEST(Scheduler, OnlyListedFailureReasonsAreRetried) {
  ManualClock clock;
  ManualCluster cluster(clock);
  SchedulerOptions options = pool(1);
  options.retry.retry_on = {"node-lost"};
  Scheduler core(ranges(2), options, cluster, clock);
  core.start();
  cluster.fail(cluster.submitted[0].handle, "node-lost");
  ASSERT_EQ(cluster.submitted.size(), 2u);
  EXPECT_EQ(cluster.submitted[1].item_id(), "r0");
  cluster.fail(cluster.submitted[1].handle, "exit");
  EXPECT_EQ(core.state(0), ItemState::kFailed);
}

TEST(Scheduler, JobPerItemRespectsPerTypeLimits) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(6);
  for (int i = 0; i < 3; ++i) items[i].type = "verify";
  SchedulerOptions options;
  options.policy = "job-per-item";
  options.params.max_in_flight = 4;
  options.params.type_limits = {{"verify", 1}};
  Scheduler core(items, options, cluster, clock);
  core.start();
  ASSERT_EQ(cluster.submitted.size(), 4u);
  EXPECT_EQ(cluster.submitted[0].item_id(), "r0");
  EXPECT_EQ(cluster.submitted[1].item_id(), "r3");
  EXPECT_EQ(cluster.submitted[3].item_id(), "r5");
  EXPECT_TRUE(cluster.submitted[0].worker.empty());
  cluster.succeed(cluster.submitted[0].handle);
  ASSERT_EQ(cluster.submitted.size(), 5u);
  EXPECT_EQ(cluster.submitted[4].item_id(), "r1");
}

// A cluster that numbers its workers (AttemptEvent::worker_key) gets the same attempts, workers
// and status as one that only names them: the key finds the worker record the name would.
TEST(Scheduler, WorkersKeyedByTheClusterAreTheWorkersItNames) {
  struct Outcome {
    std::vector<data::Attempt> attempts;
    nlohmann::json status;
  };
  auto run = [](bool keyed) {
    ManualClock clock;
    ManualCluster cluster(clock);
    SchedulerOptions options;
    options.policy = "job-per-item";
    options.params.max_in_flight = 2;
    options.retry.max_attempts = 2;
    Scheduler core(ranges(7), options, cluster, clock);
    core.start();
    const std::vector<std::string> nodes = {"node-b", "node-a", "node-c"};
    for (std::size_t n = 0; n < cluster.submitted.size(); ++n) {
      const Submission s = cluster.submitted[n];
      const std::uint32_t node = static_cast<std::uint32_t>((n * 2) % nodes.size());
      cluster.start(s.handle, nodes[node], keyed ? node : AttemptEvent::kNoWorkerKey);
      clock.advance(static_cast<data::Micros>(3 + n));
      if (n == 2) {
        cluster.fail(s.handle, "exit");  // retried: its next attempt may run elsewhere
      } else {
        cluster.succeed(s.handle);
      }
    }
    EXPECT_TRUE(core.finished());
    return Outcome{core.attempts(), to_json(core.status())};
  };
  const Outcome named = run(false);
  const Outcome keyed = run(true);
  ASSERT_EQ(keyed.attempts.size(), 8u);
  EXPECT_EQ(keyed.attempts, named.attempts);
  EXPECT_EQ(keyed.status, named.status);
  EXPECT_EQ(keyed.attempts[0].worker, "node-b");
  EXPECT_EQ(keyed.attempts[1].worker, "node-c");
  EXPECT_EQ(keyed.attempts[2].worker, "node-a");
  ASSERT_EQ(keyed.status["workers"].size(), 3u);
  EXPECT_EQ(keyed.status["workers"][0]["name"], "node-a");
}

TEST(Scheduler, PartialPoolUsesTheWorkersTheClusterCanPlace) {
  ManualClock clock;
  ManualCluster cluster(clock);
  cluster.slots = 2;
  SchedulerOptions options = pool(4);
  options.policy = "partial";
  Scheduler core(ranges(8), options, cluster, clock);
  core.start();
  EXPECT_EQ(cluster.submitted.size(), 2u);
  cluster.set_capacity(3);
  EXPECT_EQ(cluster.submitted.size(), 3u);
  EXPECT_EQ(cluster.submitted[2].worker, "w002");
  EXPECT_EQ(core.status().target, 3);
}

TEST(Scheduler, StatusReportsRemainingProgressAndWorkersAsJson) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(3), pool(2), cluster, clock);
  core.start();
  cluster.start(cluster.submitted[0].handle, "w000");
  clock.advance(5);
  cluster.succeed(cluster.submitted[0].handle);
  cluster.start(cluster.submitted[1].handle, "w001");
  nlohmann::json status = to_json(core.status());
  EXPECT_EQ(status["num_remain"], 2);
  EXPECT_EQ(status["num_succeeded"], 1);
  EXPECT_EQ(status["jobs_in_progress"], nlohmann::json::array({"199/100", "299/100"}));
  ASSERT_EQ(status["workers"].size(), 2u);
  EXPECT_EQ(status["workers"][0]["name"], "w000");
  EXPECT_EQ(status["workers"][0]["busy_us"], 5);
  EXPECT_EQ(status["workers"][1]["state"], "busy");
  // The range a worker runs, as a person reads it: FIRST-LAST (the second range: units 100 to 199).
  EXPECT_EQ(status["workers"][1]["range"], "100-199");
}

TEST(Scheduler, SnapshotAndRestoreResumeWithoutRerunningOrLosingItems) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(4);
  Scheduler first(items, pool(2), cluster, clock);
  first.start();
  cluster.succeed(cluster.submitted[0].handle);
  SchedulerSnapshot snap = first.snapshot();
  ASSERT_EQ(snap.in_flight.size(), 2u);
  EXPECT_EQ(snap.in_flight[0].item_id, "r1");

  ManualCluster after(clock);
  Scheduler resumed(items, pool(2), after, clock, snap);
  EXPECT_TRUE(after.submitted.empty());
  after.succeed(snap.in_flight[0].handle);
  ASSERT_EQ(after.submitted.size(), 1u);
  EXPECT_EQ(after.submitted[0].item_id(), "r3");
  EXPECT_EQ(after.submitted[0].handle, snap.next_handle);
  after.succeed(snap.in_flight[1].handle);
  after.succeed(after.submitted[0].handle);
  EXPECT_TRUE(resumed.finished());
  EXPECT_EQ(resumed.status().num_succeeded, 4u);
}

TEST(Scheduler, StopCancelsOnlyAttemptsInFlightAndSubmitsNothingMore) {
  ManualClock clock;
  ManualCluster cluster(clock);
  SchedulerOptions options = pool(2);
  options.retry.max_attempts = 1;
  Scheduler core(ranges(5), options, cluster, clock);
  core.start();
  ASSERT_EQ(cluster.submitted.size(), 2u);
  core.stop();
  EXPECT_EQ(cluster.cancelled, (std::vector<AttemptHandle>{1, 2}));
  EXPECT_FALSE(core.stopped());
  cluster.set_capacity(0);
  cluster.succeed(1);  // finished before the cancel got to it: still a success
  cluster.fail(2, "cancelled");
  EXPECT_EQ(cluster.submitted.size(), 2u);
  EXPECT_TRUE(core.stopped());
  EXPECT_FALSE(core.finished());
  EXPECT_FALSE(core.run_failed());
  ASSERT_EQ(core.attempts().size(), 2u);
  EXPECT_EQ(core.attempts()[1].outcome, data::Outcome::kCancelled);
  EXPECT_EQ(core.state(1), ItemState::kWaiting);
  EXPECT_EQ(core.state(2), ItemState::kReady);
  SchedulerSnapshot snap = core.snapshot();
  EXPECT_EQ(snap.items[1].attempts, 1);
  EXPECT_EQ(snap.items[1].cancelled, 1);
  EXPECT_EQ(snap.items[2].attempts, 0);
}

TEST(Scheduler, CancelledAttemptsOfAStoppedRunDoNotUseUpTheRetryBudgetAfterResume) {
  ManualClock clock;
  ManualCluster cluster(clock);
  SchedulerOptions options = pool(1);
  options.retry.max_attempts = 2;
  std::vector<data::WorkItem> items = ranges(1);
  SchedulerSnapshot snap;
  snap.items = {ItemSnapshot{"r0", ItemState::kWaiting, 3, 3}};  // three attempts, all cancelled
  snap.next_handle = 10;
  Scheduler resumed(items, options, cluster, clock, snap);
  ASSERT_EQ(cluster.submitted.size(), 1u);
  EXPECT_EQ(cluster.submitted[0].attempt, 4);
  cluster.fail(10, "exit");
  ASSERT_EQ(cluster.submitted.size(), 2u) << "a first real failure is retried";
  EXPECT_EQ(cluster.submitted[1].attempt, 5);
  cluster.fail(11, "exit");
  EXPECT_TRUE(resumed.finished());
  EXPECT_TRUE(resumed.run_failed());
}

TEST(Scheduler, ObserverSeesSubmittedStartedAndFinishedTransitions) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(1), pool(1), cluster, clock);
  std::vector<std::pair<AttemptHandle, data::Outcome>> seen;
  core.set_observer([&](AttemptHandle h, const data::Attempt& a) { seen.emplace_back(h, a.outcome); });
  core.start();
  cluster.start(1, "w000");
  cluster.succeed(1);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].second, data::Outcome::kRunning);
  EXPECT_EQ(seen[1].second, data::Outcome::kRunning);
  EXPECT_EQ(seen[2].second, data::Outcome::kSucceeded);
}

TEST(Scheduler, ObservedAttemptsKeepTheirPhasesFromSubmissionThroughPlacementToTheEnd) {
  ManualClock clock(1'000);
  ManualCluster cluster(clock);
  Scheduler core(ranges(2), pool(2), cluster, clock);
  std::vector<data::Attempt> seen;
  core.set_observer([&](AttemptHandle, const data::Attempt& a) { seen.push_back(a); });
  core.start();  // both submitted at 1,000
  clock.set(5'000);
  cluster.start_placed(1, "w000", 3'000, "node-1", 2'000);
  clock.set(6'000);
  cluster.start_placed(2, "w001", 9'000, "node-2", 500);  // a placement reported after the start, and a
                                                          // pod said to fit nowhere before its submission
  clock.set(7'000);
  cluster.succeed(1);
  cluster.fail(2, "exit");
  ASSERT_GE(seen.size(), 6u);
  const data::Attempt& started_a = seen[2];
  EXPECT_EQ(started_a.outcome, data::Outcome::kRunning);
  EXPECT_EQ(started_a.submitted, 1'000);
  EXPECT_EQ(started_a.placed, 3'000);
  EXPECT_EQ(started_a.start, 5'000);
  EXPECT_EQ(started_a.node, "node-1");
  EXPECT_EQ(started_a.unschedulable, 2'000);
  const data::Attempt& ended_a = seen[4];
  EXPECT_EQ(ended_a.outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(ended_a.submitted, 1'000);
  EXPECT_EQ(ended_a.placed, 3'000);
  EXPECT_EQ(ended_a.node, "node-1");
  EXPECT_EQ(ended_a.unschedulable, 2'000);
  const data::Attempt& ended_b = seen[5];
  EXPECT_EQ(ended_b.outcome, data::Outcome::kFailed);
  EXPECT_EQ(ended_b.placed, 6'000) << "phases stay in order: placed no later than the start";
  EXPECT_EQ(ended_b.node, "node-2");
  EXPECT_EQ(ended_b.unschedulable, 1'000) << "phases stay in order: no earlier than the submission";
  EXPECT_FALSE(core.attempts()[0].placed.has_value()) << "the core's own log keeps no phases (simulations)";
}

TEST(Scheduler, AllWorkersAreRetiredWhenTheRunFinishes) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(1), pool(2), cluster, clock);
  core.start();
  cluster.succeed(cluster.submitted[0].handle);
  EXPECT_EQ(cluster.retired, std::vector<std::string>{"w000"});
}

TEST(Scheduler, QueueOrderNamesParseAndUnknownIsAnError) {
  EXPECT_EQ(queue_order_from_string("lpt"), QueueOrder::kLongestFirst);
  EXPECT_EQ(queue_order_from_string("priority"), QueueOrder::kPriority);
  try {
    queue_order_from_string("random");
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("random"), std::string::npos) << e.what();
  }
}

TEST(Scheduler, PriorityOrderServesLargerPriorityFirst) {
  ManualClock clock;
  ManualCluster cluster(clock);
  std::vector<data::WorkItem> items = ranges(3);
  items[2].priority = 5;
  SchedulerOptions options = pool(1);
  options.order = QueueOrder::kPriority;
  Scheduler core(items, options, cluster, clock);
  core.start();
  EXPECT_EQ(cluster.submitted[0].item_id(), "r2");
}

}  // namespace
}  // namespace millrace::scheduler
