// Comparisons and capacity plans on a small synthetic cost model whose answers are known by hand.
#include <gtest/gtest.h>

#include "data/cost_model.h"
#include "data/error.h"
#include "sim/capacity_plan.h"
#include "sim/comparison.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;

// 1,000 units: 1 s/unit on [0, 800), 4 s/unit on [800, 1000); no per-range start-up. Total 1,600 s.
// Four workers: uniform's 4 ranges cost 250, 250, 250 and 50 + 800 = 850 s; cost-balanced's cost
// 400 s each, which is the lower bound 1,600 / 4.
data::CostModel tip_heavy_model() {
  return data::CostModel({{{0, 800}, 0, 1e6}, {{800, 200}, 0, 4e6}}, "units", "synthetic");
}

// 1 s/unit on 1,000 units: W workers with cost-balanced ranges finish in about 1,000 / W s.
data::CostModel flat_model() { return data::CostModel({{{0, 1000}, 0, 1e6}}, "units", "synthetic"); }

ComparisonSpec spec_on(const data::CostModel& model) {
  ComparisonSpec spec;
  spec.model = &model;
  spec.span = {0, 1000};
  spec.partitioners = {"uniform", "cost-balanced", "optimal"};
  spec.workers = {4};
  return spec;
}

const ComparisonRow& row_of(const Comparison& c, const std::string& partitioner, int workers) {
  for (const ComparisonRow& r : c.rows) {
    if (r.partitioner == partitioner && r.workers == workers) return r;
  }
  throw std::runtime_error("no row " + partitioner);
}

TEST(Comparison, CostBalancedMeetsTheLowerBoundWhereUniformWaitsOnItsTipRange) {
  const data::CostModel model = tip_heavy_model();
  ComparisonSpec spec = spec_on(model);
  spec.base.cluster.startup.constant = 10 * kSecond;
  const Comparison c = run_comparison(spec);
  const ComparisonRow& uniform = row_of(c, "uniform", 4);
  const ComparisonRow& balanced = row_of(c, "cost-balanced", 4);
  const ComparisonRow& optimal = row_of(c, "optimal", 4);
  EXPECT_EQ(uniform.makespan_mean, 860 * kSecond);
  EXPECT_EQ(uniform.lower_bound, 860 * kSecond);  // its own critical path: the tip range
  EXPECT_EQ(balanced.makespan_mean, 410 * kSecond);
  EXPECT_EQ(balanced.lower_bound, 410 * kSecond);  // 1,600 s / 4 workers + 10 s start-up
  EXPECT_DOUBLE_EQ(balanced.ratio_to_lower_bound, 1.0);
  EXPECT_EQ(optimal.makespan_mean, 410 * kSecond);
  EXPECT_EQ(balanced.ranges, 4u);
}

TEST(Comparison, LowerBoundIsTheLargerOfCriticalPathAndSpreadWorkPlusStartup) {
  std::vector<data::WorkItem> plan(3);
  for (int i = 0; i < 3; ++i) plan[i].id = std::to_string(i);
  EXPECT_EQ(lower_bound(plan, {9, 3, 3}, 2, 1, "p"), 10);  // critical path 9 > 15 / 2
  EXPECT_EQ(lower_bound(plan, {4, 4, 4}, 2, 1, "p"), 7);   // 12 / 2 = 6 > 4
}

TEST(Comparison, ResultsDoNotDependOnTheThreadCount) {
  const data::CostModel model = tip_heavy_model();
  ComparisonSpec spec = spec_on(model);
  spec.workers = {2, 3, 4};
  spec.orders = {scheduler::QueueOrder::kPlan, scheduler::QueueOrder::kLongestFirst};
  spec.replicas = 5;
  spec.seed = 42;
  spec.base.cluster.fail_prob = 0.2;
  spec.base.cluster.startup.samples = {1 * kSecond, 5 * kSecond, 30 * kSecond};
  spec.threads = 1;
  const std::string one = to_json(run_comparison(spec)).dump();
  spec.threads = 3;
  EXPECT_EQ(to_json(run_comparison(spec)).dump(), one);
  spec.threads = 8;
  EXPECT_EQ(to_json(run_comparison(spec)).dump(), one);
}

TEST(Comparison, ReplicasWithFailuresSpreadAndDifferentSeedsDiffer) {
  const data::CostModel model = tip_heavy_model();
  ComparisonSpec spec = spec_on(model);
  spec.replicas = 8;
  spec.base.cluster.fail_prob = 0.3;
  const Comparison a = run_comparison(spec);
  const ComparisonRow& r = row_of(a, "cost-balanced", 4);
  EXPECT_LE(r.makespan_min, r.makespan_mean);
  EXPECT_GE(r.makespan_max, r.makespan_mean);
  EXPECT_LT(r.makespan_min, r.makespan_max);
  spec.seed = 2;
  EXPECT_NE(to_json(run_comparison(spec)).dump(), to_json(a).dump());
}

TEST(Comparison, RejectsUnknownNamesAndBadCounts) {
  const data::CostModel model = tip_heavy_model();
  ComparisonSpec spec = spec_on(model);
  spec.partitioners = {"uniform", "bogus"};
  EXPECT_THROW(run_comparison(spec), data::Error);
  spec = spec_on(model);
  spec.base.scheduler.policy = "no-such-policy";
  EXPECT_THROW(run_comparison(spec), data::Error);
  spec = spec_on(model);
  spec.workers = {4, 0};
  EXPECT_THROW(run_comparison(spec), data::Error);
  spec = spec_on(model);
  spec.replicas = 0;
  EXPECT_THROW(run_comparison(spec), data::Error);
}

TEST(Comparison, APartitionItsGeneratorRefusesFailsTheComparisonWithTheFirstPartitionsError) {
  // optimal builds its candidates as tasks of their own, each failing here; the error reported
  // is the first partition's on any thread count, and the pool does not wait for the plans.
  const data::CostModel model = tip_heavy_model();
  ComparisonSpec spec = spec_on(model);
  spec.partitioners = {"optimal", "uniform"};
  spec.workers = {2, 4};
  spec.partition.overlap = -1;
  for (unsigned threads : {1u, 2u, 3u}) {
    spec.threads = threads;
    try {
      run_comparison(spec);
      ADD_FAILURE() << "no error on " << threads << " threads";
    } catch (const data::Error& e) {
      EXPECT_STREQ(e.what(), "optimal: overlap must not be negative (got -1)") << threads << " threads";
    }
  }
}

TEST(Comparison, RecordedBaselineReplaysRecordedDurations) {
  const data::CostModel model = tip_heavy_model();
  ComparisonSpec spec = spec_on(model);
  spec.partitioners.clear();
  spec.workers = {2};
  spec.orders = {scheduler::QueueOrder::kPlan, scheduler::QueueOrder::kLongestFirst};
  // Recorded tip first: [800, 1000) took 800 s, then three 100 s ranges of [0, 800) ... (model
  // predictions drive lpt; durations are as recorded).
  std::vector<data::WorkItem> items(4);
  const data::Range ranges[] = {{800, 200}, {0, 300}, {300, 300}, {600, 200}};
  for (int i = 0; i < 4; ++i) {
    items[i].range = ranges[i];
    items[i].id = ranges[i].end_count();
  }
  spec.recorded_items = items;
  spec.recorded_durations = {800 * kSecond, 100 * kSecond, 100 * kSecond, 500 * kSecond};
  const Comparison c = run_comparison(spec);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].partitioner, "recorded");
  EXPECT_EQ(c.rows[0].makespan_mean, 800 * kSecond);  // tip on one worker, the rest on the other: 700 s
  EXPECT_EQ(c.rows[0].lower_bound, 800 * kSecond);
}

TEST(CapacityPlan, FindsTheHandComputedFewestWorkers) {
  const data::CostModel model = flat_model();
  CapacityQuestion q;
  q.spec = spec_on(model);
  q.spec.partitioners = {"cost-balanced"};
  q.deadline = 130 * kSecond;  // 1,000 / 7 = 143 s misses, 1,000 / 8 = 125 s meets
  q.confidence = 1.0;
  q.max_workers = 64;
  const CapacityAnswer a = plan_capacity(q);
  ASSERT_TRUE(a.best.has_value());
  EXPECT_EQ(a.best->workers, 8);
  EXPECT_EQ(a.best->makespan_mean, 125 * kSecond);
  EXPECT_TRUE(a.monotone);
  EXPECT_EQ(a.curve.back().workers, 64);
}

TEST(CapacityPlan, ReportsAnUnreachableDeadline) {
  const data::CostModel model = flat_model();
  CapacityQuestion q;
  q.spec = spec_on(model);
  q.deadline = 10 * kSecond;
  q.max_workers = 16;
  const CapacityAnswer a = plan_capacity(q);
  EXPECT_FALSE(a.best.has_value());
  EXPECT_EQ(a.best_at_max.workers, 16);
  EXPECT_EQ(*a.best_at_max.deadline_met, 0.0);
}

// Every count the search asks is shown to its end, between its announcement and the next one's,
// however far the other threads simulated it before it was asked (a count done ahead was once
// never drawn).
TEST(CapacityPlan, EveryCountAskedIsShownToItsEndBeforeTheNext) {
  const data::CostModel model = flat_model();
  for (unsigned threads : {1u, 2u, 3u}) {
    CapacityQuestion q;
    q.spec = spec_on(model);
    q.spec.partitioners = {"cost-balanced"};
    q.spec.threads = threads;
    q.deadline = 130 * kSecond;
    q.confidence = 1.0;
    q.max_workers = 64;
    std::vector<std::string> shown;  // "ask N" and "done N", in the order drawn
    int asked = 0;
    q.evaluating = [&](int count) {
      asked = count;
      shown.push_back("ask " + std::to_string(count));
    };
    q.spec.progress = [&](std::int64_t done, std::int64_t total) {
      if (done == total) shown.push_back("done " + std::to_string(asked));
    };
    plan_capacity(q);
    ASSERT_FALSE(shown.empty()) << threads << " threads";
    for (std::size_t i = 0; i < shown.size(); i += 2) {
      ASSERT_EQ(shown[i].rfind("ask ", 0), 0u) << threads << " threads, line " << i << ": " << shown[i];
      ASSERT_LT(i + 1, shown.size()) << threads << " threads: " << shown[i] << " never shown done";
      EXPECT_EQ(shown[i + 1], "done " + shown[i].substr(4)) << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace millrace::sim
