// The retry policy and the worker-pool policies on their own, against a host the test drives
// (a manual clock, a capacity, the predicted work left): what a retry waits and which reasons
// retry; which lane a pool hands out, when it grows, shrinks and retires its workers.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/error.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/retry_policy.h"
#include "scheduler/worker_pool_policy.h"
#include "tests/support/manual_clock.h"

namespace millrace::scheduler {
namespace {

using test_support::ManualClock;

TEST(RetryPolicy, RetriesEveryReasonButCancelledUnlessReasonsAreListed) {
  RetryPolicy every;
  EXPECT_TRUE(every.retries("exit"));
  EXPECT_TRUE(every.retries("node-lost"));
  EXPECT_TRUE(every.retries(""));
  EXPECT_FALSE(every.retries("cancelled"));
  RetryPolicy listed;
  listed.retry_on = {"node-lost", "cancelled"};
  EXPECT_TRUE(listed.retries("node-lost"));
  EXPECT_TRUE(listed.retries("cancelled"));
  EXPECT_FALSE(listed.retries("exit"));
  EXPECT_FALSE(listed.retries("timeout"));
}

TEST(RetryPolicy, BackoffGrowsByItsFactorFromTheFirstRetryUpToItsCap) {
  for (int factor : {1, 2, 3}) {
    RetryPolicy retry;
    retry.backoff = 10;
    retry.backoff_factor = factor;
    retry.max_backoff = 5000;
    for (int attempt = 2; attempt <= 40; ++attempt) {
      double uncapped = 10 * std::pow(static_cast<double>(factor), attempt - 2);
      auto expected = static_cast<data::Micros>(std::min(uncapped, 5000.0));
      EXPECT_EQ(retry.delay_before(attempt), expected) << "factor " << factor << ", attempt " << attempt;
    }
  }
}

TEST(RetryPolicy, NoBackoffMeansAtOnceAndACapBelowTheBackoffWins) {
  RetryPolicy none;
  none.backoff = 0;
  EXPECT_EQ(none.delay_before(2), 0);
  EXPECT_EQ(none.delay_before(9), 0);
  RetryPolicy capped;
  capped.backoff = 100;
  capped.max_backoff = 30;
  EXPECT_EQ(capped.delay_before(2), 30);
  EXPECT_EQ(capped.delay_before(5), 30);
}

// What a policy may ask of the scheduler, answered by the test.
class TestHost : public PolicyHost {
 public:
  Clock& clock() override { return clock_; }
  int cluster_capacity() const override { return capacity; }
  data::Micros remaining_predicted() const override { return remaining; }
  void retire_worker(const std::string& worker) override { retired.push_back(worker); }
  void wake() override { ++wakes; }

  ManualClock clock_;
  int capacity = 1000;
  data::Micros remaining = 0;
  std::vector<std::string> retired;
  int wakes = 0;
};

PolicyParams pool_of(int workers) {
  PolicyParams params;
  params.workers = workers;
  return params;
}

const std::string kType = "range";

TEST(WorkerPoolPolicy, WorkersAreNamedByLaneZeroPaddedToTheWidestLane) {
  WorkerPoolPolicy small(WorkerPoolPolicy::Sizing::kFixed, pool_of(3));
  EXPECT_EQ(small.worker_name(0), "w000");
  EXPECT_EQ(small.worker_name(2), "w002");
  WorkerPoolPolicy large(WorkerPoolPolicy::Sizing::kFixed, pool_of(1001));
  EXPECT_EQ(large.worker_name(7), "w0007");
  EXPECT_EQ(large.worker_name(1000), "w1000");
}

TEST(WorkerPoolPolicy, AFixedPoolHandsOutTheLowestIdleLaneUntilSaturated) {
  TestHost host;
  WorkerPoolPolicy pool(WorkerPoolPolicy::Sizing::kFixed, pool_of(3));
  pool.attach(host);
  EXPECT_EQ(pool.target(), 3);
  EXPECT_EQ(pool.acquire(kType), 0);
  EXPECT_EQ(pool.acquire(kType), 1);
  EXPECT_EQ(pool.acquire(kType), 2);
  EXPECT_TRUE(pool.saturated());
  EXPECT_FALSE(pool.admits(kType));
  pool.release(kType, 1);
  EXPECT_FALSE(pool.saturated());
  EXPECT_EQ(pool.acquire(kType), 1);
  pool.release(kType, 2);
  pool.release(kType, 0);
  EXPECT_EQ(pool.acquire(kType), 0) << "lowest first, whatever the order of release";
  EXPECT_TRUE(host.retired.empty());
}

TEST(WorkerPoolPolicy, ADrainedQueueRetiresIdleWorkersThatRanButNotLanesNeverUsed) {
  TestHost host;
  WorkerPoolPolicy pool(WorkerPoolPolicy::Sizing::kFixed, pool_of(4));
  pool.attach(host);
  int a = pool.acquire(kType);
  int b = pool.acquire(kType);
  pool.release(kType, a);
  pool.on_queue_drained();  // lane 0 idle and warm: it goes; lane 1 is busy; 2 and 3 never ran
  EXPECT_EQ(host.retired, std::vector<std::string>{"w000"});
  pool.release(kType, b);
  pool.on_queue_drained();
  EXPECT_EQ(host.retired, (std::vector<std::string>{"w000", "w001"}));
  EXPECT_EQ(pool.acquire(kType), 0) << "a retry brings a retired lane back";
  pool.release(kType, 0);
  pool.on_run_finished();
  EXPECT_EQ(host.retired, (std::vector<std::string>{"w000", "w001", "w000"}));
  EXPECT_EQ(pool.target(), 0);
  EXPECT_TRUE(pool.saturated());
}

TEST(WorkerPoolPolicy, APartialPoolFollowsTheCapacityAndRetiresWhatFallsOutside) {
  TestHost host;
  host.capacity = 2;
  WorkerPoolPolicy pool(WorkerPoolPolicy::Sizing::kPartial, pool_of(4));
  pool.attach(host);
  EXPECT_EQ(pool.target(), 2);
  EXPECT_EQ(pool.acquire(kType), 0);
  EXPECT_EQ(pool.acquire(kType), 1);
  EXPECT_TRUE(pool.saturated());
  int wakes = host.wakes;
  pool.on_capacity_changed(9);  // more than asked: the pool stops at its 4
  EXPECT_EQ(pool.target(), 4);
  EXPECT_EQ(host.wakes, wakes + 1) << "a pool that grew wakes the scheduler";
  EXPECT_EQ(pool.acquire(kType), 2);
  pool.on_capacity_changed(1);
  EXPECT_EQ(pool.target(), 1);
  EXPECT_TRUE(host.retired.empty()) << "busy lanes finish their attempt first";
  pool.release(kType, 2);
  pool.release(kType, 1);
  EXPECT_EQ(host.retired, (std::vector<std::string>{"w002", "w001"}));
  pool.release(kType, 0);
  EXPECT_EQ(pool.acquire(kType), 0);
  EXPECT_TRUE(pool.saturated());
}

TEST(WorkerPoolPolicy, AutoscaleGrowsAfterItsDelayToMeetTheDeadlineAndShrinksAsWorkGoes) {
  TestHost host;
  host.remaining = 500;
  PolicyParams params = pool_of(10);
  params.min_workers = 1;
  params.deadline = 100;
  params.scale_up_delay = 20;
  WorkerPoolPolicy pool(WorkerPoolPolicy::Sizing::kAutoscale, params);
  pool.attach(host);
  EXPECT_EQ(pool.target(), 1) << "growth arrives only after the scale-up delay";
  host.clock_.advance(19);
  EXPECT_EQ(pool.target(), 1);
  host.clock_.advance(20);
  // 500 of work in the 80 left: ceil(500 / 80) = 7 workers.
  EXPECT_EQ(pool.target(), 7);
  EXPECT_GE(host.wakes, 1);
  for (int lane = 0; lane < 7; ++lane) EXPECT_EQ(pool.acquire(kType), lane);
  for (int lane = 0; lane < 7; ++lane) pool.release(kType, lane);
  host.clock_.advance(50);
  host.remaining = 100;
  pool.progressed();  // ceil(100 / 50) = 2: the idle lanes 2..6 are retired at once
  EXPECT_EQ(pool.target(), 2);
  EXPECT_EQ(host.retired, (std::vector<std::string>{"w002", "w003", "w004", "w005", "w006"}));
}

TEST(WorkerPoolPolicy, AutoscalePastItsDeadlineWithWorkLeftUsesEveryWorker) {
  TestHost host;
  host.remaining = 1;
  PolicyParams params = pool_of(5);
  params.min_workers = 2;
  params.deadline = 10;
  WorkerPoolPolicy pool(WorkerPoolPolicy::Sizing::kAutoscale, params);
  pool.attach(host);
  host.clock_.advance(10);
  pool.progressed();
  host.clock_.advance(10);  // the scale-up delay is 0: the timer is due at once
  EXPECT_EQ(pool.target(), 5);
  host.remaining = 0;
  pool.progressed();
  EXPECT_EQ(pool.target(), 2) << "no work left: back to the minimum";
}

TEST(ConcurrencyPolicy, ParametersOutOfRangeAreAnErrorNamingThePolicy) {
  PolicyParams params = pool_of(4);
  params.min_workers = 5;
  try {
    make_policy("autoscale", params);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "policy 'autoscale'");
    EXPECT_NE(e.problem().find("min workers"), std::string::npos) << e.what();
  }
  PolicyParams limits;
  limits.type_limits = {{"verify", 0}};
  try {
    make_policy("job-per-item", limits);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "policy 'job-per-item'");
    EXPECT_NE(e.problem().find("'verify'"), std::string::npos) << e.what();
  }
}

TEST(ConcurrencyPolicy, AnUnknownNameListsEveryRegisteredPolicy) {
  try {
    make_policy("greedy", pool_of(4));
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "--policy");
    EXPECT_EQ(e.problem(), "unknown concurrency policy 'greedy' (known: fixed-pool, partial, autoscale, job-per-item)");
  }
  EXPECT_EQ(policy_list(), "fixed-pool, partial, autoscale, job-per-item");
}

TEST(ConcurrencyPolicy, EveryRegisteredNameMakesAPolicyOfItsSizing) {
  PolicyParams params = pool_of(3);
  params.max_in_flight = 2;
  std::map<std::string, int> targets;
  for (const std::string& name : policy_names()) {
    TestHost host;
    host.capacity = 2;
    std::unique_ptr<ConcurrencyPolicy> policy = make_policy(name, params);
    policy->attach(host);
    targets[name] = policy->target();
  }
  // K attempts at once; the whole pool; what the cluster can place; the minimum, no work being left.
  const std::map<std::string, int> expected{{"job-per-item", 2}, {"fixed-pool", 3}, {"partial", 2}, {"autoscale", 1}};
  EXPECT_EQ(targets, expected);
}

}  // namespace
}  // namespace millrace::scheduler
