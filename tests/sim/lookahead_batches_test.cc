// A plan's search fanned out (sim/lookahead_batches.h): the count it waits for goes elsewhere in
// one batch with the curve's counts and, while the pool has workers to spare, the counts it may
// ask next; their results are kept until asked. Checked with a pool double simulating each batch
// here, shard by shard: the batches hand-computed from the search's tree, fewer batches than
// counts asked, and the answer, curve and rows equal to the plan simulated here, byte for byte.
#include "sim/lookahead_batches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "data/error.h"
#include "sim/capacity_plan.h"
#include "tests/support/pool_double.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;

// 1 s a unit on [0, 960): 48 uniform ranges of 20 s, so w workers take ceil(48 / w) x 20 s.
struct FlatPlan {
  data::CostModel model{{{{0, 960}, 0, 1e6}}, "units", "synthetic"};
  CapacityQuestion question() const {
    CapacityQuestion q;
    q.spec.model = &model;
    q.spec.span = {0, 960};
    q.spec.partitioners = {"uniform"};
    q.spec.partition.ranges = 48;
    q.spec.noise = false;
    q.spec.replicas = 2;
    q.spec.threads = 1;
    q.deadline = 120 * kSecond;  // ceil(48 / w) <= 6: w >= 8
    q.confidence = 1.0;
    q.max_workers = 16;
    return q;
  }
};

// A pool of `workers` simulating each batch here, two replicas a shard; the counts of every batch.
std::shared_ptr<Elsewhere> pool_double(int workers, std::vector<std::vector<int>>& batches) {
  return test_support::pool_double(workers, 2, [&batches](const std::vector<ComparisonSpec>& specs) {
    std::vector<int>& counts = batches.emplace_back();
    for (const ComparisonSpec& spec : specs) counts.push_back(spec.workers.at(0));
  });
}

nlohmann::json answer_json(const CapacityAnswer& a) {
  Comparison curve{a.curve};
  return {{"best", to_json(Comparison{{*a.best}})}, {"curve", to_json(curve)}, {"evaluated", to_json(a.evaluated)}};
}

TEST(LookaheadBatches, APlanFannedOutSendsTheCountsAheadInTheAwaitedCountsBatchAndAnswersAsHere) {
  const FlatPlan flat;
  const CapacityAnswer here = plan_capacity(flat.question());
  ASSERT_TRUE(here.best.has_value());
  EXPECT_EQ(here.best->workers, 8);
  EXPECT_EQ(here.best->makespan_mean, 120 * kSecond);

  std::vector<std::vector<int>> batches;
  CapacityQuestion q = flat.question();
  q.spec.elsewhere = pool_double(4, batches);
  std::vector<int> asked;
  q.evaluating = [&asked](int count) { asked.push_back(count); };
  const CapacityAnswer fanned = plan_capacity(q);
  EXPECT_EQ(answer_json(fanned).dump(), answer_json(here).dump());

  // By hand, one shard a count, 4 workers: 16 asked first, with the curve's 1, 2, 4, 8 (5 shards,
  // two rounds: room for 3 more) and the first three counts possible after them in the search's
  // tree over [1, 16] (8; 4, 12; 2, 6, 10, 14), not certain: 12, 6, 10. The search then asks 8
  // (meets), 4 (misses), 6 (misses): all sent; 12 and 10 dropped when out of reach; then 7, not
  // sent: one shard, room for 3, the possible counts over [7, 8] not asked yet: 5 (never asked).
  EXPECT_EQ(asked, (std::vector<int>{16, 8, 4, 6, 7, 1, 2}));
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0], (std::vector<int>{16, 1, 2, 4, 8, 12, 6, 10}));
  EXPECT_EQ(batches[1], (std::vector<int>{7, 5}));
  EXPECT_LT(batches.size(), asked.size());
}

TEST(LookaheadBatches, APoolWithoutWorkersToSpareGetsTheAwaitedAndCertainCountsOnly) {
  const FlatPlan flat;
  std::vector<std::vector<int>> batches;
  CapacityQuestion q = flat.question();
  q.spec.elsewhere = pool_double(1, batches);
  const CapacityAnswer fanned = plan_capacity(q);
  EXPECT_EQ(answer_json(fanned).dump(), answer_json(plan_capacity(flat.question())).dump());
  // One worker: every round holds one shard, so no count looked ahead fits in a round of its own.
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches[0], (std::vector<int>{16, 1, 2, 4, 8}));
  for (std::size_t i = 1; i < batches.size(); ++i) EXPECT_EQ(batches[i].size(), 1u) << i;
}

TEST(LookaheadBatches, APoolAnsweringForTooFewComparisonsIsRefused) {
  const FlatPlan flat;
  CapacityQuestion q = flat.question();
  auto pool = std::make_shared<Elsewhere>();
  pool->batch = [](const std::vector<ComparisonSpec>&) { return std::vector<std::vector<ReplicaResult>>{}; };
  q.spec.elsewhere = pool;
  try {
    plan_capacity(q);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(std::string(e.what()), "the sweep's shards: returned the results of 0 comparisons of 5");
  }
}

}  // namespace
}  // namespace millrace::sim
