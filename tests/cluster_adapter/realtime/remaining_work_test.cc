#include "cluster_adapter/realtime/remaining_work.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/support/work_items.h"

namespace millrace::cluster_adapter {
namespace {

// `count` ranges of 100 units (test_support::ranges), each predicted to take `predicted`.
std::vector<data::WorkItem> ranges(int count, data::Micros predicted) {
  std::vector<data::WorkItem> items = test_support::ranges(count);
  for (data::WorkItem& item : items) item.predicted = predicted;
  return items;
}

TEST(RemainingWorkTest, WithoutNoiseTheBandIsThePredictionSpreadOverTheSlots) {
  RemainingWork work(ranges(4, 6 * data::kMicrosPerSecond), {});
  EXPECT_EQ(work.predicted(), 24 * data::kMicrosPerSecond);
  auto eta = work.eta(3);
  ASSERT_TRUE(eta);
  EXPECT_EQ(eta->expected, 8 * data::kMicrosPerSecond);
  EXPECT_EQ(eta->p10, 8 * data::kMicrosPerSecond);
  EXPECT_EQ(eta->p90, 8 * data::kMicrosPerSecond);
}

// Near the end of a run: three 60 s ranges left on ten slots take 60 s, not 18 s; and a 100 s
// range beside four of 10 s on four slots takes 100 s, not 35 s.
TEST(RemainingWorkTest, TheLastRangesAreNotDividedByIdleSlots) {
  RemainingWork three(ranges(3, 60 * data::kMicrosPerSecond), {});
  auto eta = three.eta(10);
  ASSERT_TRUE(eta);
  EXPECT_EQ(eta->expected, 60 * data::kMicrosPerSecond);
  EXPECT_EQ(eta->p10, 60 * data::kMicrosPerSecond);
  EXPECT_EQ(eta->p90, 60 * data::kMicrosPerSecond);

  std::vector<data::WorkItem> items = ranges(5, 10 * data::kMicrosPerSecond);
  items[2].predicted = 100 * data::kMicrosPerSecond;
  RemainingWork uneven(items, {});
  EXPECT_EQ(uneven.eta(4)->expected, 100 * data::kMicrosPerSecond);
  uneven.settle(items[2].id);  // the long one done: 40 s over 4 slots
  EXPECT_EQ(uneven.eta(4)->expected, 10 * data::kMicrosPerSecond);
  EXPECT_EQ(uneven.eta(2)->expected, 20 * data::kMicrosPerSecond);
}

TEST(RemainingWorkTest, SettlingCountsEachItemOnceAndIgnoresUnknownIds) {
  RemainingWork work(ranges(3, 2 * data::kMicrosPerSecond), {});
  work.settle("r1");
  work.settle("r1");
  work.settle("not-an-item");
  EXPECT_EQ(work.predicted(), 4 * data::kMicrosPerSecond);
  work.settle("r0");
  work.settle("r2");
  EXPECT_EQ(work.predicted(), 0);
  auto eta = work.eta(2);
  ASSERT_TRUE(eta);
  EXPECT_EQ(eta->expected, 0);
  EXPECT_EQ(eta->p90, 0);
}

TEST(RemainingWorkTest, NothingPredictedWithWorkLeftHasNoEta) {
  RemainingWork work(ranges(2, 0), {});
  EXPECT_FALSE(work.eta(1));
}

// The quantile function the test's noise describes, read off its knots independently of
// DurationNoise: linear between (0, 0.5), (0.25, 0.8), (0.5, 1), (0.75, 1.3), (1, 2).
double reference_factor(double u) {
  const double knots[] = {0.5, 0.8, 1.0, 1.3, 2.0};
  const double position = u * 4;
  const int below = std::min(static_cast<int>(position), 3);
  return knots[below] + (position - below) * (knots[below + 1] - knots[below]);
}

// The band against a Monte Carlo of the remaining sum (independent draws per item, as compare's
// replicas draw them): p10 and p90 of 20,000 replicas of 200 items.
TEST(RemainingWorkTest, TheBandMatchesTheQuantilesOfDrawnSums) {
  const int items = 200;
  const data::Micros predicted = 10 * data::kMicrosPerSecond;
  const int slots = 4;
  data::DurationNoise noise({data::NoiseSegment{0, {0.5, 0.8, 1.0, 1.3, 2.0}}});
  RemainingWork work(ranges(items, predicted), noise);
  auto eta = work.eta(slots);
  ASSERT_TRUE(eta);
  EXPECT_EQ(eta->expected, items * predicted / slots);

  std::mt19937_64 generator(20261203);
  auto uniform = [&] { return (static_cast<double>(generator() >> 11) + 0.5) * 0x1.0p-53; };
  std::vector<double> sums(20000);
  for (double& sum : sums) {
    sum = 0;
    for (int i = 0; i < items; ++i) sum += reference_factor(uniform()) * static_cast<double>(predicted) / slots;
  }
  std::sort(sums.begin(), sums.end());
  const double p10 = sums[sums.size() / 10];
  const double p90 = sums[sums.size() * 9 / 10];
  const double tolerance = 0.005 * static_cast<double>(eta->expected);
  EXPECT_NEAR(static_cast<double>(eta->p10), p10, tolerance);
  EXPECT_NEAR(static_cast<double>(eta->p90), p90, tolerance);
  // The band is not the prediction: the factor's mean is (0.65 + 0.9 + 1.15 + 1.65) / 4 = 1.0875.
  EXPECT_NEAR(static_cast<double>(eta->p10 + eta->p90) / 2, 1.0875 * items * predicted / slots, tolerance);
}

TEST(RemainingWorkTest, SettledItemsLeaveTheBandAsWellAsThePrediction) {
  data::DurationNoise noise({data::NoiseSegment{0, {0.5, 1.0, 2.0}}});
  RemainingWork all(ranges(4, data::kMicrosPerSecond), noise);
  RemainingWork two(std::vector<data::WorkItem>(ranges(2, data::kMicrosPerSecond)), noise);
  all.settle("r2");
  all.settle("r3");
  EXPECT_EQ(all.eta(1)->p10, two.eta(1)->p10);
  EXPECT_EQ(all.eta(1)->p90, two.eta(1)->p90);
}

// 100 ranges predicted at 10 s each, without noise; 30 of them take 1 s. The run's ratio is
// 0.1, blended with the model by 30 / (30 + 10): the 70 left are expected to take
// (1 + 0.75 x (0.1 - 1)) x 700 s = 227.5 s, 32.5 s on 7 slots; and the run is outside the model.
TEST(RemainingWorkTest, TheEtaLearnsTheRunsOwnRatioAndSaysWhenItIsOutsideTheModel) {
  RemainingWork work(ranges(100, 10 * data::kMicrosPerSecond), {});
  for (int i = 0; i < 30; ++i) work.observe("r" + std::to_string(i), data::kMicrosPerSecond);
  const auto eta = work.eta(7);
  ASSERT_TRUE(eta);
  EXPECT_EQ(eta->observed, 30u);
  EXPECT_DOUBLE_EQ(eta->run_ratio, 0.1);
  EXPECT_EQ(eta->expected, 32'500'000);
  EXPECT_TRUE(eta->outside_model);
  EXPECT_EQ(eta->note(), "ranges run 0.10x the model");
  EXPECT_EQ(work.predicted(), 700 * data::kMicrosPerSecond);  // the predictions themselves stay
}

// With the model's noise, items taking what the model expects of them (its factor's mean,
// 1.0875 for these knots) keep the run inside the model, and the ETA where the model puts it.
TEST(RemainingWorkTest, ARunInsideTheModelsNoiseKeepsItsEtaAndSaysNothing) {
  data::DurationNoise noise({data::NoiseSegment{0, {0.5, 0.8, 1.0, 1.3, 2.0}}});
  RemainingWork learnt(ranges(100, 10 * data::kMicrosPerSecond), noise);
  RemainingWork fresh(ranges(100, 10 * data::kMicrosPerSecond), noise);
  for (int i = 0; i < 50; ++i) {
    learnt.observe("r" + std::to_string(i), 10'875'000);
    fresh.settle("r" + std::to_string(i));
  }
  const auto eta = learnt.eta(5);
  ASSERT_TRUE(eta);
  EXPECT_NEAR(eta->run_ratio, 1.0, 0.005);
  EXPECT_FALSE(eta->outside_model);
  EXPECT_EQ(eta->note(), "");
  EXPECT_NEAR(static_cast<double>(eta->expected), static_cast<double>(fresh.eta(5)->expected),
              0.005 * static_cast<double>(eta->expected));
  EXPECT_GE(eta->p90 - eta->p10, fresh.eta(5)->p90 - fresh.eta(5)->p10);  // the ratio's own uncertainty widens it
}

// A model that learnt how whole runs differ (recorded runs at 0.9x, 1.0x and 1.1x: median 0.997x,
// log scale 12% with 2 degrees of freedom): before any range ends the ETA starts at the runs'
// median with their spread; a run at 1.08x is inside that spread, though far outside what 50
// ranges' own noise gives; a run at 0.5x is outside both.
TEST(RemainingWorkTest, WithTheRunToRunSpreadTheEtaStartsFromTheRecordedRunsAndAllowsTheirSpread) {
  const data::NoiseSegment within{0, {0.95, 1.0, 1.05}};
  const data::DurationNoise noise({within}, {}, data::RunSpread{{0.9, 1.0, 1.1}, ""});
  const data::DurationNoise alone({within});
  RemainingWork spread(ranges(100, 10 * data::kMicrosPerSecond), noise);
  RemainingWork narrow(ranges(100, 10 * data::kMicrosPerSecond), alone);
  const auto before = spread.eta(10);
  ASSERT_TRUE(before);
  EXPECT_NEAR(static_cast<double>(before->expected), noise.runs().median() * 100 * data::kMicrosPerSecond, 1e3);
  EXPECT_GT(before->p90 - before->p10, 5 * (narrow.eta(10)->p90 - narrow.eta(10)->p10));

  for (int i = 0; i < 50; ++i) {
    spread.observe("r" + std::to_string(i), 10'800'000);
    narrow.observe("r" + std::to_string(i), 10'800'000);
  }
  EXPECT_FALSE(spread.eta(10)->outside_model);
  EXPECT_TRUE(narrow.eta(10)->outside_model);
  EXPECT_NEAR(spread.eta(10)->run_ratio, 1.08, 0.001);
  // The run's own 50 ranges outweigh the recorded runs' spread: the ETA moves to its ratio.
  EXPECT_NEAR(static_cast<double>(spread.eta(10)->expected), 1.08 * 50 * data::kMicrosPerSecond,
              0.01 * 50 * data::kMicrosPerSecond);

  RemainingWork slow(ranges(100, 10 * data::kMicrosPerSecond), noise);
  for (int i = 0; i < 50; ++i) slow.observe("r" + std::to_string(i), 5 * data::kMicrosPerSecond);
  EXPECT_TRUE(slow.eta(10)->outside_model);
}

}  // namespace
}  // namespace millrace::cluster_adapter
