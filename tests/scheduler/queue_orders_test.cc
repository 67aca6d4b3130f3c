// The queue orders and pool sizing a tip-first catch-up deployment asks about: tip-first order
// regardless of how the plan is listed, and a pool that retires workers as the queue drains
// (same makespan as the fixed pool, fewer worker-hours held in the straggler tail).
#include <gtest/gtest.h>

#include "scheduler/work_queue.h"
#include "sim/duration_model.h"
#include "sim/simulation.h"

namespace millrace::scheduler {
namespace {

std::vector<data::WorkItem> ascending_plan(const std::vector<int>& seconds) {
  std::vector<data::WorkItem> items;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    const data::Range r{static_cast<std::int64_t>(i) * 100, 100};
    data::WorkItem& item = items.emplace_back();
    item.id = r.end_count();
    item.range = r;
    item.predicted = seconds[i] * data::kMicrosPerSecond;
  }
  return items;
}

sim::SimulationResult run(const std::vector<data::WorkItem>& plan, const std::string& policy, QueueOrder order,
                          int workers) {
  sim::SimulationConfig config;
  config.cluster.slots_per_node = workers;
  config.scheduler.policy = policy;
  config.scheduler.order = order;
  config.scheduler.params.workers = workers;
  std::unordered_map<std::string, data::Micros> durations;
  for (const auto& item : plan) durations[item.id] = item.predicted;
  return sim::simulate(plan, sim::table_model(durations, "plan"), config);
}

TEST(QueueOrders, TipFirstTakesTheHighestRangeFirstWhateverThePlanOrder) {
  const auto plan = ascending_plan({5, 1, 3, 2});
  const auto result = run(plan, "fixed-pool", QueueOrder::kTipFirst, 1);
  ASSERT_EQ(result.attempt_log.size(), 4u);
  EXPECT_EQ(result.attempt_log[0].item_id, "399/100");
  EXPECT_EQ(result.attempt_log[3].item_id, "99/100");
  EXPECT_EQ(queue_order_from_string("tip-first"), QueueOrder::kTipFirst);
  EXPECT_STREQ(to_string(QueueOrder::kTipFirst), "tip-first");
}

TEST(QueueOrders, LongestPredictedFirstShortensATipFirstTail) {
  // The longest range listed last: tip first leaves it to run alone at the end.
  const auto plan = ascending_plan({10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  const auto lpt = run(plan, "fixed-pool", QueueOrder::kLongestFirst, 3);
  EXPECT_EQ(lpt.makespan, 10 * data::kMicrosPerSecond);
  const auto tip_first = run(plan, "fixed-pool", QueueOrder::kTipFirst, 3);
  EXPECT_GT(tip_first.makespan, lpt.makespan);
}

TEST(QueueOrders, TheFixedPoolShrinksAsTheQueueDrainsSoTheTailHoldsOnlyBusyWorkers) {
  // Tip first: the 20 s range starts first and runs alone after the nine 1 s ranges; the three
  // other workers are retired once the queue is empty instead of idling until the end.
  const auto plan = ascending_plan({1, 1, 1, 1, 1, 1, 1, 1, 1, 20});
  const auto fixed = run(plan, "fixed-pool", QueueOrder::kTipFirst, 4);
  EXPECT_EQ(fixed.makespan, 20 * data::kMicrosPerSecond);
  EXPECT_EQ(fixed.succeeded, plan.size());
  EXPECT_LT(fixed.node_hours, 4 * 20.0 / 3600);
}

}  // namespace
}  // namespace millrace::scheduler
