// Uncertainty in every what-if: range durations drawn from the model's noise, checked against a
// reference written here (the engine's raw output turned into u, the factor interpolated by
// hand), and the spread a comparison reports recomputed from those draws: seeded, independent of
// the thread count, the expectation with the noise off, and the recorded run left as recorded.
#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "data/cost_model.h"
#include "data/cost_model_fit.h"
#include "data/duration_noise.h"
#include "data/run_spread.h"
#include "data/uniform_draws.h"
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

TEST(DurationDraws, ARunFactorMovesEveryRangeOfADrawAtOnceAndLeavesTheRangesOwnDrawsAlone) {
  const std::vector<data::Range> ranges{{0, 10}, {10, 30}, {40, 60}};
  data::CostModel model = noisy_model();
  model.set_noise(data::DurationNoise({{0, {0.5, 1.5}}}, {}, data::RunSpread{{0.8, 1.0, 1.25}}));
  std::vector<double> run_factors;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const std::vector<data::Micros> own = reference_durations(ranges, seed);
    const std::vector<data::Micros> drawn = draw_durations(model, ranges, seed, true);
    const double factor = static_cast<double>(drawn[0]) / static_cast<double>(own[0]);
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      EXPECT_NEAR(static_cast<double>(drawn[k]), factor * static_cast<double>(own[k]), 1e-6 * static_cast<double>(drawn[k]))
          << "seed " << seed;
    }
    run_factors.push_back(factor);
  }
  const auto [low, high] = std::minmax_element(run_factors.begin(), run_factors.end());
  EXPECT_LT(*low, 0.95);
  EXPECT_GT(*high, 1.05);
}

// Calibration against ground truth: recorded runs of a known workload (2 s start-up and 10 ms a
// unit, each range within a further 0.85-1.15 of it, and each whole run 0.9-1.1 of that at once),
// six of them fitted; 400 new runs of the same workload then fall inside the p10-p90 band of the
// drawn total at least 65% of the time (80% if the six runs showed the spread exactly; more where
// Student's t widens it for an estimate from six runs), and the band is not over 2.5 times as wide
// as the new runs' own p10-p90. Ranges drawn independently alone (the run factors dropped) cover a
// small share: their band is the ranges' own noise averaged over 100 ranges.
TEST(DurationDraws, TheBandOfADrawnRunCoversNewRunsOfTheRecordedWorkloadAsOftenAsItSays) {
  std::mt19937_64 rng(2026);
  std::vector<data::Range> ranges;
  for (int k = 0; k < 100; ++k) ranges.push_back({k * 100, 100});
  const auto a_run = [&](std::size_t run, std::vector<data::Observation>* recorded) {
    const double whole = data::real_draw(rng, 0.9, 1.1);
    double total = 0;
    for (const data::Range& r : ranges) {
      const double seconds = (2 + 0.01 * static_cast<double>(r.count)) * whole * data::real_draw(rng, 0.85, 1.15);
      total += seconds;
      if (recorded) recorded->push_back({r, std::llround(seconds * kSecond), std::nullopt, run});
    }
    return total * kSecond;
  };
  std::vector<data::Observation> recorded;
  for (std::size_t run = 0; run < 6; ++run) a_run(run, &recorded);
  data::FitOptions options;
  data::CostModel model = data::fit_cost_model(recorded, options, "six runs").model;
  ASSERT_TRUE(model.noise().runs().identified());

  const auto band = [&](const data::CostModel& m) {
    std::vector<double> totals;
    for (std::uint64_t seed = 1; seed <= 400; ++seed) {
      double total = 0;
      for (data::Micros d : draw_durations(m, ranges, seed, true)) total += static_cast<double>(d);
      totals.push_back(total);
    }
    std::sort(totals.begin(), totals.end());
    return std::pair{totals[40], totals[359]};
  };
  const auto [p10, p90] = band(model);
  data::CostModel ranges_alone = model;
  ranges_alone.set_noise(data::DurationNoise(model.noise().segments(), model.noise().lengths()));
  const auto [alone_p10, alone_p90] = band(ranges_alone);
  int inside = 0, inside_alone = 0;
  std::vector<double> new_runs;
  for (int k = 0; k < 400; ++k) {
    const double total = a_run(0, nullptr);
    new_runs.push_back(total);
    inside += total >= p10 && total <= p90;
    inside_alone += total >= alone_p10 && total <= alone_p90;
  }
  std::sort(new_runs.begin(), new_runs.end());
  const double true_width = new_runs[359] - new_runs[40];
  EXPECT_GT(inside, 0.65 * 400) << "band " << p10 << " - " << p90;
  EXPECT_LT(p90 - p10, 2.5 * true_width) << "band " << p10 << " - " << p90 << ", new runs' p10-p90 " << true_width;
  EXPECT_LT(inside_alone, 0.4 * 400) << "band " << alone_p10 << " - " << alone_p90;
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
