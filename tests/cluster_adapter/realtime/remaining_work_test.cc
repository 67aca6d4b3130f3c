#include "cluster_adapter/realtime/remaining_work.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
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

}  // namespace
}  // namespace millrace::cluster_adapter
