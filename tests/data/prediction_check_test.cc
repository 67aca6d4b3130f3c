// Predicted vs actual of a run's items and makespan (data/prediction_check.h), against figures
// worked out by hand in the test, and durations in the unit that fits them.
#include "data/prediction_check.h"

#include <gtest/gtest.h>

#include "data/readable_duration.h"
#include "tests/support/work_items.h"

namespace millrace::data {
namespace {

WorkItem item(const std::string& id, std::int64_t first, Micros predicted) {
  WorkItem w;
  w.id = id;
  w.range = Range{first, 10};
  w.predicted = predicted;
  return w;
}

Attempt attempt(const std::string& id, int number, Micros start, Micros end, Outcome outcome = Outcome::kSucceeded) {
  return test_support::attempt(id, number, "w", outcome, start, end);
}

// Ratios 0.5, 1.0, 1.2, 1.9 and 2.0 (a retried item counts its succeeded attempt; an item
// without a prediction and one that never succeeded do not count).
struct Fixture {
  std::vector<WorkItem> items{item("a", 0, 1000), item("b", 10, 1000), item("c", 20, 1000), item("d", 30, 1000),
                              item("e", 40, 1000), item("unpredicted", 50, 0), item("failed", 60, 1000)};
  std::vector<Attempt> attempts{attempt("a", 1, 0, 500),
                                attempt("b", 1, 0, 300, Outcome::kFailed),
                                attempt("b", 2, 300, 1300),
                                attempt("c", 1, 0, 1200),
                                attempt("d", 1, 0, 1900),
                                attempt("e", 1, 0, 2000),
                                attempt("unpredicted", 1, 0, 9000),
                                attempt("failed", 1, 0, 7000, Outcome::kFailed)};
};

TEST(PredictionCheck, RatiosAreNearestRankQuantilesOfTheSucceededPredictedItems) {
  Fixture f;
  const PredictionCheck check = check_predictions(f.items, f.attempts, nullptr, std::nullopt, 2000);
  EXPECT_EQ(check.items, 5u);
  EXPECT_DOUBLE_EQ(check.ratio_p10, 0.5);  // ceil(0.5) = rank 1
  EXPECT_DOUBLE_EQ(check.ratio_p50, 1.2);  // ceil(2.5) = rank 3
  EXPECT_DOUBLE_EQ(check.ratio_p90, 2.0);  // ceil(4.5) = rank 5
  EXPECT_DOUBLE_EQ(check.total_ratio, (500.0 + 1000 + 1200 + 1900 + 2000) / 5000);
  EXPECT_FALSE(check.inside_band.has_value());  // no noise: no band
  EXPECT_FALSE(check.makespan_band.has_value());
  EXPECT_DOUBLE_EQ(check.makespan_error(), 0);
}

TEST(PredictionCheck, TheWorstMissesAreTheFarthestEitherWayInRatio) {
  Fixture f;
  const PredictionCheck check = check_predictions(f.items, f.attempts, nullptr, std::nullopt, 0, 3);
  ASSERT_EQ(check.worst.size(), 3u);
  // |ln 0.5| = 0.693 > |ln 2.0| = 0.693 (a tie: the earlier item first) > |ln 1.9| = 0.642.
  EXPECT_EQ(check.worst[0].item_id, "a");
  EXPECT_EQ(check.worst[1].item_id, "e");
  EXPECT_EQ(check.worst[2].item_id, "d");
  EXPECT_EQ(check.worst[2].predicted, 1000);
  EXPECT_EQ(check.worst[2].actual, 1900);
}

// Noise quantiles 0.5, 1.0, 1.5 at probabilities 0, 0.5, 1: the p10-p90 band of a prediction P is
// [0.6 P, 1.4 P]; ratios 0.5 and 1.9 and 2.0 fall outside, 1.0 and 1.2 inside.
TEST(PredictionCheck, CalibrationCountsTheItemsInsideTheirOwnBand) {
  Fixture f;
  const DurationNoise noise({{0, {0.5, 1.0, 1.5}}});
  const PredictionCheck check = check_predictions(f.items, f.attempts, &noise, std::nullopt, 0);
  ASSERT_TRUE(check.inside_band.has_value());
  EXPECT_EQ(*check.inside_band, 2u);
}

// Five ranges each 1.3x their prediction, the band 0.84-1.16: outside it all, unless the model
// learnt how whole runs differ: then each range is set against the run's own 1.3x and is inside.
TEST(PredictionCheck, WithTheRunToRunSpreadLearntRangesAreSetAgainstTheRunsOwnLevel) {
  std::vector<WorkItem> items;
  std::vector<Attempt> attempts;
  for (int i = 0; i < 5; ++i) {
    items.push_back(item("r" + std::to_string(i), 10 * i, 1000));
    attempts.push_back(attempt("r" + std::to_string(i), 1, 0, 1300));
  }
  const DurationNoise within({{0, {0.8, 1.0, 1.2}}});
  const PredictionCheck alone = check_predictions(items, attempts, &within, std::nullopt, 0);
  EXPECT_EQ(alone.inside_band, 0u);
  EXPECT_FALSE(alone.relative_to_run);
  const DurationNoise with_runs({{0, {0.8, 1.0, 1.2}}}, {}, RunSpread{{0.9, 1.0, 1.1}, ""});
  const PredictionCheck relative = check_predictions(items, attempts, &with_runs, std::nullopt, 0);
  EXPECT_EQ(relative.inside_band, 5u);
  EXPECT_TRUE(relative.relative_to_run);
  EXPECT_DOUBLE_EQ(relative.total_ratio, 1.3);
}

TEST(PredictionCheck, TheMakespanIsJudgedAgainstItsBand) {
  Fixture f;
  const MakespanBand band{900, 1000, 1100};
  const PredictionCheck inside = check_predictions(f.items, f.attempts, nullptr, band, 1100);
  EXPECT_TRUE(inside.makespan_inside());
  EXPECT_DOUBLE_EQ(inside.makespan_error(), 0.1);
  const PredictionCheck outside = check_predictions(f.items, f.attempts, nullptr, band, 850);
  EXPECT_FALSE(outside.makespan_inside());
  EXPECT_DOUBLE_EQ(outside.makespan_error(), -0.15);
}

TEST(PredictionCheck, ARunWithoutPredictionsHasNothingToCheck) {
  Fixture f;
  for (WorkItem& w : f.items) w.predicted = 0;
  const PredictionCheck check = check_predictions(f.items, f.attempts, nullptr, std::nullopt, 5);
  EXPECT_EQ(check.items, 0u);
  EXPECT_TRUE(check.worst.empty());
}

TEST(ReadableDuration, EachDurationReadsInTheUnitThatFitsIt) {
  EXPECT_EQ(readable_duration(850 * kMicrosPerMilli), "850 ms");
  EXPECT_EQ(readable_duration(12'345 * kMicrosPerMilli), "12.3 s");
  EXPECT_EQ(readable_duration(270 * kMicrosPerSecond), "4.5 min");
  EXPECT_EQ(readable_duration(9 * kMicrosPerHour + 15 * 60 * kMicrosPerSecond), "9.25 h");
  EXPECT_EQ(readable_duration(0), "0 s");
  EXPECT_EQ(readable_duration(-2 * kMicrosPerSecond), "-2.0 s");
}

}  // namespace
}  // namespace millrace::data
