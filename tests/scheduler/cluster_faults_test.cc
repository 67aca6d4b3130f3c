// The scheduler core against a cluster that lies (tests/support/fault_injecting_cluster.h):
// duplicated, dropped, delayed and reordered events, failed submits, and events for attempts
// that were cancelled or never existed. What must hold whatever the cluster reports: an item is
// settled once and counted once, no item is lost (an attempt whose end never comes stays in
// flight, so a snapshot resumes it), and a report the core cannot place is a clear error.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "data/error.h"
#include "scheduler/scheduler.h"
#include "tests/support/fault_injecting_cluster.h"
#include "tests/support/manual_cluster.h"
#include "tests/support/work_items.h"

namespace millrace::scheduler {
namespace {

using test_support::EventFaults;
using test_support::FaultInjectingCluster;
using test_support::FaultPlan;
using test_support::ManualClock;
using test_support::ManualCluster;
using test_support::ranges;

SchedulerOptions pool(int workers) {
  SchedulerOptions options;
  options.plan_name = "faults.plan";
  options.params.workers = workers;
  return options;
}

EventFaults always(double EventFaults::*fault) {
  EventFaults faults;
  faults.*fault = 1;
  return faults;
}

// A scheduler behind a FaultInjectingCluster wrapping a hand-driven cluster.
struct Rig {
  explicit Rig(FaultPlan plan, int items = 3, SchedulerOptions options = pool(1))
      : inner(clock), faulty(inner, clock, plan), core(ranges(items), options, faulty, clock) {}
  ManualClock clock;
  ManualCluster inner;
  FaultInjectingCluster faulty;
  Scheduler core;
};

int succeeded_records(const Scheduler& core, const std::string& item) {
  int n = 0;
  for (const data::Attempt& a : core.attempts()) n += a.item_id == item && a.outcome == data::Outcome::kSucceeded;
  return n;
}

TEST(ClusterFaults, ADuplicatedSucceededSettlesTheItemOnceAndStartsTheNextOnce) {
  FaultPlan plan;
  plan.succeeded = always(&EventFaults::duplicate);
  Rig rig(plan);
  rig.core.start();
  rig.inner.start(1, "w000");
  rig.clock.advance(10);
  rig.inner.succeed(1);
  EXPECT_EQ(rig.faulty.injected().duplicated, 1);
  EXPECT_EQ(rig.core.attempts().size(), 1u);
  EXPECT_EQ(rig.core.status().num_succeeded, 1u);
  ASSERT_EQ(rig.inner.submitted.size(), 2u) << "the second item is submitted once";
  EXPECT_EQ(rig.inner.submitted[1].item_id(), "r1");
  StatusReport status = rig.core.status();
  ASSERT_EQ(status.workers.size(), 1u);
  EXPECT_EQ(status.workers[0].succeeded, 1);
  EXPECT_EQ(status.workers[0].busy_time, 10);
}

TEST(ClusterFaults, ADuplicatedFailedUsesOneAttemptOfTheBudget) {
  FaultPlan plan;
  plan.failed = always(&EventFaults::duplicate);
  SchedulerOptions options = pool(1);
  options.retry.max_attempts = 2;
  Rig rig(plan, 1, options);
  rig.core.start();
  rig.inner.fail(1, "exit");
  ASSERT_EQ(rig.inner.submitted.size(), 2u);
  EXPECT_EQ(rig.inner.submitted[1].attempt, 2);
  EXPECT_EQ(rig.core.state(0), ItemState::kInFlight);
  rig.inner.succeed(2);
  EXPECT_TRUE(rig.core.finished());
  EXPECT_FALSE(rig.core.run_failed());
}

TEST(ClusterFaults, ARepeatedStartedKeepsTheFirstStartAndWorker) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(1), pool(1), cluster, clock);
  core.start();
  clock.advance(10);
  cluster.start(1, "pod-a");
  clock.advance(25);
  cluster.start(1, "pod-b");  // a re-attached cluster reporting what it finds running
  clock.advance(40);
  cluster.succeed(1);
  ASSERT_EQ(core.attempts().size(), 1u);
  EXPECT_EQ(core.attempts()[0].start, 10);
  EXPECT_EQ(core.attempts()[0].end, 40);
  EXPECT_EQ(core.attempts()[0].worker, "pod-a");
}

TEST(ClusterFaults, ADroppedStartedStillSettlesTheItemOnceTimedFromItsSubmission) {
  FaultPlan plan;
  plan.started = always(&EventFaults::drop);
  Rig rig(plan, 2);
  rig.clock.advance(5);
  rig.core.start();
  rig.clock.advance(10);
  rig.inner.start(1, "w000");
  rig.clock.advance(30);
  rig.inner.succeed(1);
  EXPECT_EQ(rig.faulty.injected().dropped, 1);
  ASSERT_EQ(rig.core.attempts().size(), 1u);
  data::Attempt a = rig.core.attempts()[0];
  EXPECT_EQ(a.outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(a.start, 5) << "no start reported: the submission is the earliest it began";
  EXPECT_EQ(a.end, 30);
  EXPECT_EQ(a.worker, "w000");
  EXPECT_EQ(rig.core.status().workers.size(), 0u) << "a worker never seen starting is not listed";
  EXPECT_EQ(rig.inner.submitted.size(), 2u);
}

TEST(ClusterFaults, AStartedReorderedAfterItsSucceededIsIgnored) {
  FaultPlan plan;
  plan.started = always(&EventFaults::reorder);
  Rig rig(plan, 2);
  rig.core.start();
  rig.inner.start(1, "w000");
  rig.clock.advance(7);
  rig.inner.succeed(1);  // overtakes the start held back
  EXPECT_EQ(rig.faulty.injected().reordered, 1);
  ASSERT_EQ(rig.core.attempts().size(), 1u);
  EXPECT_EQ(rig.core.attempts()[0].start, 0);
  EXPECT_EQ(rig.core.status().num_succeeded, 1u);
  ASSERT_EQ(rig.inner.submitted.size(), 2u);
  EXPECT_EQ(rig.core.in_flight(), 1u) << "only r1 is in flight; the late start did not bring r0 back";
  for (const WorkerStatus& w : rig.core.status().workers) EXPECT_NE(w.range, "0-99") << w.name;
}

TEST(ClusterFaults, ADelayedSucceededKeepsItsTimeAndSettlesWhenItArrives) {
  FaultPlan plan;
  plan.succeeded = always(&EventFaults::delay);
  plan.succeeded.delay_by = 50;
  Rig rig(plan, 2);
  rig.core.start();
  rig.inner.start(1, "w000");
  rig.clock.advance(10);
  rig.inner.succeed(1);
  EXPECT_EQ(rig.core.status().num_succeeded, 0u);
  EXPECT_EQ(rig.inner.submitted.size(), 1u);
  rig.clock.advance(60);
  EXPECT_EQ(rig.core.status().num_succeeded, 1u);
  ASSERT_EQ(rig.core.attempts().size(), 1u);
  EXPECT_EQ(rig.core.attempts()[0].end, 10) << "the time it happened, not the time it was heard";
  EXPECT_EQ(rig.inner.submitted.size(), 2u);
}

TEST(ClusterFaults, ADroppedEndLeavesTheItemInFlightAndASnapshotResumesIt) {
  FaultPlan plan;
  plan.succeeded = always(&EventFaults::drop);
  Rig rig(plan, 2);
  rig.core.start();
  rig.inner.start(1, "w000");
  rig.inner.succeed(1);
  EXPECT_FALSE(rig.core.finished());
  EXPECT_EQ(rig.core.state(0), ItemState::kInFlight);
  SchedulerSnapshot snap = rig.core.snapshot();
  ASSERT_EQ(snap.in_flight.size(), 1u);
  EXPECT_EQ(snap.in_flight[0].item_id, "r0");

  ManualCluster after(rig.clock);
  Scheduler resumed(ranges(2), pool(1), after, rig.clock, snap);
  after.succeed(1);  // the re-attached attempt's end, heard this time
  ASSERT_EQ(after.submitted.size(), 1u);
  after.succeed(after.submitted[0].handle);
  EXPECT_TRUE(resumed.finished());
  EXPECT_EQ(succeeded_records(resumed, "r0"), 1);
  EXPECT_EQ(succeeded_records(resumed, "r1"), 1);
}

TEST(ClusterFaults, FailedSubmitsUseUpTheRetryBudgetWithTheirReasonAndBlockDependents) {
  FaultPlan plan;
  plan.fail_submit = 1;
  std::vector<data::WorkItem> items = ranges(2);
  items[1].depends_on = {"r0"};
  ManualClock clock;
  ManualCluster inner(clock);
  FaultInjectingCluster faulty(inner, clock, plan);
  Scheduler core(items, pool(1), faulty, clock);
  core.start();  // each submit fails inside submit(): the core retries at once, three times
  EXPECT_EQ(faulty.injected().failed_submits, 3);
  EXPECT_TRUE(inner.submitted.empty());
  EXPECT_TRUE(core.finished());
  EXPECT_TRUE(core.run_failed());
  ASSERT_EQ(core.attempts().size(), 3u);
  EXPECT_EQ(core.attempts()[2].number, 3);
  EXPECT_EQ(core.attempts()[2].failure_reason, "submit-failed");
  StatusReport status = core.status();
  ASSERT_EQ(status.jobs_failed.size(), 2u);
  EXPECT_EQ(status.jobs_failed[0].reason, "submit-failed");
  EXPECT_EQ(status.jobs_failed[1].reason, "dependency failed");
}

TEST(ClusterFaults, ASucceededForAnAttemptReportedCancelledIsIgnoredAndTheItemRunsAgainOnResume) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(1), pool(1), cluster, clock);
  core.start();
  core.stop();
  cluster.fail(1, "cancelled");
  cluster.succeed(1);  // too late: the attempt is over for the core
  EXPECT_TRUE(core.stopped());
  EXPECT_EQ(core.state(0), ItemState::kWaiting);
  ASSERT_EQ(core.attempts().size(), 1u);
  EXPECT_EQ(core.attempts()[0].outcome, data::Outcome::kCancelled);
  SchedulerSnapshot snap = core.snapshot();
  EXPECT_EQ(snap.items[0].state, ItemState::kWaiting);
  EXPECT_EQ(snap.items[0].cancelled, 1);
}

TEST(ClusterFaults, ACancelledAttemptThatSucceededFirstCountsOnceAndItsLateCancelIsIgnored) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(1), pool(1), cluster, clock);
  core.start();
  core.stop();
  cluster.succeed(1);
  cluster.fail(1, "cancelled");
  EXPECT_TRUE(core.finished());
  EXPECT_EQ(core.state(0), ItemState::kSucceeded);
  EXPECT_EQ(core.attempts().size(), 1u);
}

TEST(ClusterFaults, AnEventForAHandleNeverSubmittedIsAnErrorNamingThePlanAndTheHandle) {
  ManualClock clock;
  ManualCluster cluster(clock);
  Scheduler core(ranges(2), pool(1), cluster, clock);
  core.start();
  for (const char* kind : {"started", "succeeded", "failed"}) {
    try {
      if (std::string(kind) == "started") cluster.start(42, "w000");
      if (std::string(kind) == "succeeded") cluster.succeed(42);
      if (std::string(kind) == "failed") cluster.fail(42, "exit");
      FAIL() << kind << ": no error";
    } catch (const data::Error& e) {
      EXPECT_EQ(e.input(), "faults.plan");
      EXPECT_EQ(e.problem(), std::string("the cluster reported '") + kind +
                                 "' for attempt handle 42, which was never submitted (handles so far: 1 to 1)");
    }
  }
  EXPECT_EQ(core.state(0), ItemState::kInFlight) << "the lie changed nothing";
  cluster.succeed(1);
  EXPECT_EQ(core.status().num_succeeded, 1u);
}

TEST(ClusterFaults, AFaultPlanWithAProbabilityOutOfRangeIsAnErrorNamingTheFault) {
  ManualClock clock;
  ManualCluster inner(clock);
  FaultPlan plan;
  plan.succeeded.reorder = 1.5;
  try {
    FaultInjectingCluster faulty(inner, clock, plan);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "fault plan");
    EXPECT_NE(e.problem().find("succeeded reorder probability 1.5"), std::string::npos) << e.what();
  }
}

// Many runs under every fault but drops at once, each seed its own: the cluster runs attempts
// in submission order, failing some. Whatever arrives twice, late or out of order, every item
// ends with exactly one success, its attempts numbered 1, 2, ... without a gap, and the same
// seed gives the same faults and the same attempt log.
std::vector<data::Attempt> run_under_faults(std::uint64_t seed, test_support::InjectedFaults* injected) {
  FaultPlan plan;
  plan.seed = seed;
  EventFaults faults;
  faults.duplicate = 0.2;
  faults.reorder = 0.2;
  faults.delay = 0.2;
  faults.delay_by = 25;
  plan.started = plan.succeeded = plan.failed = faults;
  plan.fail_submit = 0.1;
  SchedulerOptions options = pool(3);
  options.retry.max_attempts = 1000;
  constexpr int kItems = 20;
  Rig rig(plan, kItems, options);
  std::mt19937_64 outcomes(seed);
  rig.core.start();
  std::size_t next = 0;  // the inner cluster's next submission to run
  for (int step = 0; step < 10000 && !rig.core.finished(); ++step) {
    rig.clock.advance(rig.clock.now() + 10);
    if (next < rig.inner.submitted.size()) {
      AttemptHandle handle = rig.inner.submitted[next++].handle;
      rig.inner.start(handle, "");
      rig.clock.advance(rig.clock.now() + 5);
      if (outcomes() % 4 == 0) {
        rig.inner.fail(handle, "exit");
      } else {
        rig.inner.succeed(handle);
      }
    }
    rig.faulty.flush();
  }
  EXPECT_TRUE(rig.core.finished()) << "seed " << seed;
  EXPECT_FALSE(rig.core.run_failed()) << "seed " << seed;
  std::map<std::string, std::vector<int>> numbers;
  std::set<std::pair<std::string, int>> ended;
  for (const data::Attempt& a : rig.core.attempts()) {
    EXPECT_TRUE(ended.emplace(a.item_id, a.number).second)
        << "seed " << seed << ": attempt " << a.number << " of " << a.item_id << " ended twice";
    numbers[a.item_id].push_back(a.number);
    EXPECT_LE(a.start, a.end) << "seed " << seed << " " << a.item_id;
  }
  EXPECT_EQ(numbers.size(), static_cast<std::size_t>(kItems)) << "seed " << seed;
  for (const auto& [item, seen] : numbers) {
    EXPECT_EQ(succeeded_records(rig.core, item), 1) << "seed " << seed << " " << item;
    std::vector<int> sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      EXPECT_EQ(sorted[i], static_cast<int>(i) + 1) << "seed " << seed << " " << item;
    }
  }
  *injected = rig.faulty.injected();
  return rig.core.attempts();
}

TEST(ClusterFaults, UnderManyFaultsAtOnceEveryItemSucceedsExactlyOnceAndTheSeedDecides) {
  test_support::InjectedFaults total;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    test_support::InjectedFaults injected;
    run_under_faults(seed, &injected);
    total.duplicated += injected.duplicated;
    total.reordered += injected.reordered;
    total.delayed += injected.delayed;
    total.failed_submits += injected.failed_submits;
  }
  EXPECT_GT(total.duplicated, 0);
  EXPECT_GT(total.reordered, 0);
  EXPECT_GT(total.delayed, 0);
  EXPECT_GT(total.failed_submits, 0);

  test_support::InjectedFaults a;
  test_support::InjectedFaults b;
  std::vector<data::Attempt> first = run_under_faults(7, &a);
  std::vector<data::Attempt> again = run_under_faults(7, &b);
  ASSERT_EQ(first.size(), again.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].item_id, again[i].item_id);
    EXPECT_EQ(first[i].end, again[i].end);
    EXPECT_EQ(first[i].outcome, again[i].outcome);
  }
  EXPECT_EQ(a.duplicated, b.duplicated);
}

}  // namespace
}  // namespace millrace::scheduler
