#include "data/queue_waits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "data/readable_duration.h"

namespace millrace::data {
namespace {

// The nearest-rank percentile by sorting every wait: the ceil(p x n)-th smallest.
Micros percentile_by_sorting(std::vector<Micros> waits, double p) {
  std::sort(waits.begin(), waits.end());
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(waits.size())));
  return waits[std::max<std::size_t>(rank, 1) - 1];
}

TEST(QueueWaits, PercentilesAreTheSortedWaitsNearestRanks) {
  std::mt19937_64 draw(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Micros> waits;
    double pending = 0;
    for (std::size_t i = 0, n = 1 + draw() % (trial < 100 ? 12 : 3000); i < n; ++i) {
      // Many equal waits (0 and a few values), as a pool's first attempts give.
      const Micros wait = draw() % 4 == 0 ? 0 : static_cast<Micros>(draw() % (trial % 2 == 0 ? 5 : 100000));
      waits.push_back(wait);
      pending += static_cast<double>(wait);
    }
    WaitSummary s = summarize_wait_times(waits, 0, 2000);
    EXPECT_EQ(s.items, waits.size());
    EXPECT_EQ(s.p50, percentile_by_sorting(waits, 0.50)) << "trial " << trial;
    EXPECT_EQ(s.p90, percentile_by_sorting(waits, 0.90)) << "trial " << trial;
    EXPECT_EQ(s.p99, percentile_by_sorting(waits, 0.99)) << "trial " << trial;
    EXPECT_EQ(s.max, *std::max_element(waits.begin(), waits.end())) << "trial " << trial;
    EXPECT_DOUBLE_EQ(s.mean_pending, pending / 2000) << "trial " << trial;
  }
}

TEST(QueueWaits, AStartBeforeItsSubmitTimeWaitedNothingAndNoItemsGiveZeros) {
  WaitSummary s = summarize_wait_times({4 - 10, 6 - 0}, 0, 10);
  EXPECT_EQ(s.p50, 0);
  EXPECT_EQ(s.max, 6);
  EXPECT_DOUBLE_EQ(s.mean_pending, 0.6);
  EXPECT_EQ(summarize_wait_times({}, 0, 10), WaitSummary{});
}

TEST(QueueWaits, TheTextReadsInTheToolsUnitsWithTheAveragePendingGrouped) {
  WaitSummary s;
  s.p50 = 90 * kMicrosPerSecond;
  s.p90 = 2 * kMicrosPerHour;
  s.p99 = 3 * kMicrosPerHour;
  s.max = 3 * kMicrosPerHour;
  s.mean_pending = 2231.83;
  EXPECT_EQ(waits_text(s), "p50 " + readable_duration(s.p50) + ", p90 " + readable_duration(s.p90) + ", p99 " +
                              readable_duration(s.p99) + ", max " + readable_duration(s.max) +
                              "; 2,232 pending on average");
  s.mean_pending = 0.6;
  EXPECT_NE(waits_text(s).find("; 0.6 pending on average"), std::string::npos) << waits_text(s);
}

}  // namespace
}  // namespace millrace::data
