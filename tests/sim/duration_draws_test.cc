// Uncertainty in every what-if: range durations drawn from the model's noise, checked against a
// reference written here (the engine's raw output turned into u, the factor interpolated by
// hand), and the spread a comparison reports recomputed from those draws: seeded, independent of
// the thread count, the expectation with the noise off, and the recorded run left as recorded.
#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "data/cost_model.h"
#include "data/duration_noise.h"
#include "sim/comparison.h"
#include "sim/duration_draws.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;

// 1 s/unit on [0, 100), no start-up; the factor is uniform on [0.5, 1.5] (two quantile knots,
// linear between them), so a range's duration is predicted x (0.5 + u).
data::CostModel noisy_model() {
  data::CostModel model({{{0, 100}, 0, 1e6}}, "units", "synthetic");
  model.set_noise(data::DurationNoise({{0, {0.5, 1.5}}}));
  return model;
}

// The reference draw: u from the top 53 bits of the engine's raw output, centred in its cell.
std::vector<data::Micros> reference_durations(const std::vector<data::Range>& ranges, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<data::Micros> out;
  for (const data::Range& r : ranges) {
    const double u = (static_cast<double>(engine() >> 11) + 0.5) / 9007199254740992.0;
    out.push_back(std::llround(static_cast<double>(r.count) * 1e6 * (0.5 + u)));
  }
  return out;
}

TEST(DurationDraws, EachRangeIsItsPredictionTimesTheFactorAtAUniformDraw) {
  const data::CostModel model = noisy_model();
  const std::vector<data::Range> ranges{{0, 10}, {10, 30}, {40, 60}};
  EXPECT_EQ(draw_durations(model, ranges, 42, true), reference_durations(ranges, 42));
  EXPECT_EQ(draw_durations(model, ranges, 42, true), draw_durations(model, ranges, 42, true));
  EXPECT_NE(draw_durations(model, ranges, 43, true), draw_durations(model, ranges, 42, true));
}

TEST(DurationDraws, NoiseOffOrAModelWithoutNoiseGivesThePredictions) {
  const std::vector<data::Range> ranges{{0, 10}, {10, 30}};
  const std::vector<data::Micros> predicted{10 * kSecond, 30 * kSecond};
  EXPECT_EQ(draw_durations(noisy_model(), ranges, 42, false), predicted);
  EXPECT_EQ(draw_durations(data::CostModel({{{0, 100}, 0, 1e6}}), ranges, 42, true), predicted);
}

ComparisonSpec four_ranges_on_one_worker(const data::CostModel& model) {
  ComparisonSpec spec;
  spec.model = &model;
  spec.span = {0, 100};
  spec.partitioners = {"uniform"};
  spec.partition.ranges = 4;  // 25 units each
  spec.workers = {1};
  spec.replicas = 40;
  spec.seed = 5;
  return spec;
}

data::Micros nearest_rank(std::vector<data::Micros> values, double p) {
  std::sort(values.begin(), values.end());
  std::size_t rank = 1;
  while (static_cast<double>(rank) < p * static_cast<double>(values.size()) - 1e-9) ++rank;
  return values[rank - 1];
}

TEST(ComparisonSpread, EqualsTheSpreadOfTheDrawsComputedHere) {
  const data::CostModel model = noisy_model();
  ComparisonSpec spec = four_ranges_on_one_worker(model);
  const Comparison c = run_comparison(spec);
  ASSERT_EQ(c.rows.size(), 1u);
  const ComparisonRow& row = c.rows[0];
  // One worker runs the ranges one after another: each replica's makespan is the sum of its draws.
  const std::vector<data::Range> ranges{{0, 25}, {25, 25}, {50, 25}, {75, 25}};
  std::vector<data::Micros> makespans;
  double sum = 0;
  for (int r = 0; r < spec.replicas; ++r) {
    const std::vector<data::Micros> d =
        reference_durations(ranges, duration_seed(replica_seed(5, "uniform", 1, scheduler::QueueOrder::kPlan, r)));
    makespans.push_back(d[0] + d[1] + d[2] + d[3]);
    sum += static_cast<double>(makespans.back());
  }
  EXPECT_EQ(row.makespans, makespans);
  EXPECT_EQ(row.makespan_mean, std::llround(sum / spec.replicas));
  EXPECT_EQ(row.makespan_p10, nearest_rank(makespans, 0.1));
  EXPECT_EQ(row.makespan_p50, nearest_rank(makespans, 0.5));
  EXPECT_EQ(row.makespan_p90, nearest_rank(makespans, 0.9));
  EXPECT_EQ(row.makespan_max, *std::max_element(makespans.begin(), makespans.end()));
  EXPECT_LT(row.makespan_p10, row.makespan_p90);  // the work itself is uncertain
}

TEST(ComparisonSpread, IsTheSameOnAnyThreadCountAndGoneWithTheNoiseOff) {
  const data::CostModel model = noisy_model();
  ComparisonSpec spec = four_ranges_on_one_worker(model);
  spec.workers = {1, 2, 3};
  spec.partitioners = {"uniform", "cost-balanced"};
  spec.threads = 1;
  const std::string one = to_json(run_comparison(spec)).dump();
  spec.threads = 3;
  EXPECT_EQ(to_json(run_comparison(spec)).dump(), one);
  spec.noise = false;
  for (const ComparisonRow& row : run_comparison(spec).rows) {
    if (row.workers != 1) continue;
    EXPECT_EQ(row.makespan_p10, 100 * kSecond) << row.partitioner;  // the expectation: 100 units at 1 s
    EXPECT_EQ(row.makespan_max, 100 * kSecond) << row.partitioner;
  }
}

TEST(ComparisonSpread, TheRecordedRunKeepsItsRecordedDurations) {
  const data::CostModel model = noisy_model();
  ComparisonSpec spec = four_ranges_on_one_worker(model);
  spec.partitioners.clear();
  std::vector<data::WorkItem> items(2);
  items[0].id = "a";
  items[0].range = data::Range{0, 50};
  items[1].id = "b";
  items[1].range = data::Range{50, 50};
  spec.recorded_items = items;
  spec.recorded_durations = {7 * kSecond, 11 * kSecond};
  const Comparison c = run_comparison(spec);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].makespan_p10, 18 * kSecond);
  EXPECT_EQ(c.rows[0].makespan_max, 18 * kSecond);
}

}  // namespace
}  // namespace millrace::sim
