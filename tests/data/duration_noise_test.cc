#include "data/duration_noise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/error.h"
#include "data/uniform_draws.h"

namespace millrace::data {
namespace {

using ::testing::HasSubstr;

TEST(DurationNoise, DefaultIsFactorOneEverywhere) {
  const DurationNoise none;
  EXPECT_TRUE(none.empty());
  for (std::int64_t unit : {-5, 0, 1'000'000}) {
    EXPECT_EQ(none.factor(unit, 0, 0.01), 1.0);
    EXPECT_EQ(none.factor(unit, 0, 0.99), 1.0);
    EXPECT_EQ(none.quantile(unit, 0.9), 1.0);
  }
}

TEST(DurationNoise, QuantilesAreTheSamplesOrderStatisticsInterpolated) {
  // Ratios 1..5 (given unsorted): with 5 knots the knots are the order statistics themselves.
  std::vector<NoiseSample> samples = {{3, 4.0}, {0, 2.0}, {4, 1.0}, {1, 5.0}, {2, 3.0}};
  const DurationNoise noise = DurationNoise::from_samples(samples, 5, 1, 1);
  ASSERT_EQ(noise.segments().size(), 1u);
  EXPECT_EQ(noise.segments()[0].quantiles, (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(noise.quantile(2, 0.5), 3);
  EXPECT_DOUBLE_EQ(noise.quantile(2, 0.125), 1.5);  // halfway between knots 0 and 1
  EXPECT_DOUBLE_EQ(noise.factor(2, 0, 0.875), 4.5);
  EXPECT_DOUBLE_EQ(noise.quantile(2, 0), 1);
  EXPECT_DOUBLE_EQ(noise.quantile(2, 1), 5);
  // Three knots of the same samples: min, median, max.
  EXPECT_EQ(DurationNoise::from_samples(samples, 3, 1, 1).segments()[0].quantiles, (std::vector<double>{1, 3, 5}));
}

TEST(DurationNoise, SegmentsFollowTheSequenceAndExtendToBothSides) {
  std::vector<NoiseSample> samples;
  for (int i = 0; i < 5; ++i) samples.push_back({100 + i, 2.0});
  for (int i = 0; i < 5; ++i) samples.push_back({i, 1.0});
  const DurationNoise noise = DurationNoise::from_samples(samples, 5, 5, 8);
  ASSERT_EQ(noise.segments().size(), 2u);
  EXPECT_EQ(noise.segments()[0].first, 0);
  EXPECT_EQ(noise.segments()[1].first, 100);
  EXPECT_EQ(noise.factor(-50, 0, 0.5), 1.0);
  EXPECT_EQ(noise.factor(99, 0, 0.9), 1.0);
  EXPECT_EQ(noise.factor(100, 0, 0.1), 2.0);
  EXPECT_EQ(noise.factor(1'000'000, 0, 0.5), 2.0);
  // At most max_segments, however many samples.
  EXPECT_EQ(DurationNoise::from_samples(samples, 5, 1, 3).segments().size(), 3u);
}

TEST(DurationNoise, RangesSharingAFirstUnitStayInOneSegment) {
  // Six samples at unit 7 would be cut in half by equal counts; the cut moves past them.
  std::vector<NoiseSample> samples;
  for (int i = 0; i < 6; ++i) samples.push_back({7, 1.0 + i});
  for (int i = 0; i < 2; ++i) samples.push_back({20, 10.0});
  const DurationNoise noise = DurationNoise::from_samples(samples, 3, 4, 2);
  ASSERT_EQ(noise.segments().size(), 2u);
  EXPECT_EQ(noise.segments()[0].quantiles, (std::vector<double>{1, 3.5, 6}));
  EXPECT_EQ(noise.segments()[1].first, 20);
}

TEST(DurationNoise, SkipsUnusableRatiosAndGivesNoNoiseWithoutSamples) {
  EXPECT_TRUE(DurationNoise::from_samples({}, 11, 10, 4).empty());
  const DurationNoise noise = DurationNoise::from_samples({{0, -1.0}, {1, 2.0}, {2, std::nan("")}}, 3, 1, 1);
  EXPECT_EQ(noise.segments()[0].quantiles, (std::vector<double>{2, 2, 2}));
}

TEST(DurationNoise, DrawsReproduceTheSampleDistribution) {
  // Ratios uniform on [0.5, 1.5]; factors drawn with uniform u follow that distribution.
  std::mt19937_64 rng(11);
  std::vector<NoiseSample> samples;
  for (int i = 0; i < 2000; ++i) samples.push_back({i, 0.5 + unit_draw(rng)});
  const DurationNoise noise = DurationNoise::from_samples(samples, 41, 2000, 1);
  std::vector<double> draws;
  for (int i = 0; i < 20000; ++i) draws.push_back(noise.factor(500, 0, unit_draw(rng)));
  std::sort(draws.begin(), draws.end());
  for (double p : {0.1, 0.5, 0.9}) {
    EXPECT_NEAR(draws[static_cast<std::size_t>(p * draws.size())], 0.5 + p, 0.03) << "p " << p;
  }
  double mean = 0;
  for (double d : draws) mean += d / draws.size();
  EXPECT_NEAR(mean, 1.0, 0.02);
}

TEST(DurationNoise, RoundTripsThroughTheModelFileAndOldFilesLoadWithout) {
  CostModel model({{{0, 10}, 5, 1}, {{10, 10}, 7, 3}}, "ledgers", "test");
  const nlohmann::json plain = model.to_json();
  EXPECT_FALSE(plain.contains("noise"));
  EXPECT_TRUE(CostModel::from_json(plain, "old.json").noise().empty());
  const DurationNoise noise({{0, {0.5, 1.0, 2.0}}, {12, {0.9, 1.0, 1.1}}});
  model.set_noise(noise);
  const CostModel loaded = CostModel::from_json(nlohmann::json::parse(model.to_json().dump()), "model.json");
  EXPECT_EQ(loaded.noise(), noise);
  EXPECT_DOUBLE_EQ(loaded.noise().quantile(15, 0.75), 1.05);
}

// Three runs whose ranges ran 0.9x, 1.0x and 1.1x the model all together, each range within its
// run a further factor of 0.8 to 1.2: the run factors are kept apart, and the segments hold the
// within-run noise alone (its median 1, its p10-p90 0.84-1.16; pooled, the runs would widen it to
// about 0.78-1.24).
TEST(DurationNoise, SamplesOfSeveralRunsKeepEachRunsFactorApartFromTheRangesNoise) {
  std::mt19937_64 rng(7);
  std::vector<NoiseSample> samples, one_run;
  const double run_factors[] = {0.9, 1.0, 1.1};
  for (std::size_t run = 0; run < 3; ++run) {
    for (int i = 0; i < 400; ++i) {
      const double within = real_draw(rng, 0.8, 1.2);
      samples.push_back({i * 10, run_factors[run] * within, 10, 1.0, run});
      if (run == 0) one_run.push_back({i * 10, within, 10, 1.0, 0});
    }
  }
  const DurationNoise noise = DurationNoise::from_samples(samples, 21, 10000, 1);
  ASSERT_TRUE(noise.runs().identified());
  ASSERT_EQ(noise.runs().factors.size(), 3u);
  for (std::size_t run = 0; run < 3; ++run) EXPECT_NEAR(noise.runs().factors[run], run_factors[run], 0.01);
  EXPECT_NEAR(noise.quantile(0, 0.5), 1.0, 0.02);
  EXPECT_NEAR(noise.quantile(0, 0.1), 0.84, 0.015);
  EXPECT_NEAR(noise.quantile(0, 0.9), 1.16, 0.015);
  const DurationNoise loaded = DurationNoise::from_json(nlohmann::json::parse(noise.to_json().dump()), "m.json");
  EXPECT_EQ(loaded, noise);

  // One run: no run factor, and the samples as they were.
  const DurationNoise alone = DurationNoise::from_samples(one_run, 21, 10000, 1);
  EXPECT_FALSE(alone.runs().identified());
  EXPECT_THAT(alone.runs().unidentified, HasSubstr("one run fitted: how whole runs differ"));
  EXPECT_FALSE(alone.to_json().contains("run_factors"));
  EXPECT_NEAR(alone.quantile(0, 0.1), 0.84, 0.015);

  // Two runs: too few to tell a spread from them.
  std::vector<NoiseSample> two(samples.begin(), samples.begin() + 800);
  EXPECT_THAT(DurationNoise::from_samples(two, 21, 10000, 1).runs().unidentified,
              HasSubstr("2 runs fitted: how whole runs differ (load on the machine, another node pool) is not "
                        "identified (at least 3 runs"));
}

// Runs that recorded different stretches of the sequence: each is most of its own out-of-fold
// prediction there, so its level cannot be told from the model's error along the sequence.
TEST(DurationNoise, RunsOnStretchesNoOtherRunRecordedLearnNoRunFactor) {
  std::vector<NoiseSample> samples;
  for (std::size_t run = 0; run < 3; ++run) {
    for (int i = 0; i < 100; ++i) samples.push_back({static_cast<std::int64_t>(run) * 10000 + i * 10, 1.0, 10, 1.0, run});
  }
  const DurationNoise noise = DurationNoise::from_samples(samples, 21, 10000, 1);
  EXPECT_FALSE(noise.runs().identified());
  EXPECT_THAT(noise.runs().unidentified,
              HasSubstr("fitted run 1 has 0 ranges where another run also recorded (at least 10): its level cannot "
                        "be told from the model's own error along the sequence"));
}

TEST(DurationNoise, RefusesNonFiniteQuantilesNamingTheInput) {
  try {
    DurationNoise({{0, {1.0, std::numeric_limits<double>::infinity()}}}, {}, {}, "fit of run 3");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "fit of run 3");
    EXPECT_THAT(e.problem(), HasSubstr("noise segment 0: quantile 1 is negative or not finite"));
  }
}

class MalformedNoise : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(MalformedNoise, IsRejectedNamingTheInputAndTheSegment) {
  nlohmann::json model = CostModel({{{0, 10}, 5, 1}}).to_json();
  model["noise"] = nlohmann::json::parse(GetParam().first);
  try {
    CostModel::from_json(model, "m.json");
    FAIL() << "accepted " << GetParam().first;
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "m.json");
    EXPECT_THAT(e.problem(), HasSubstr(GetParam().second));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Json, MalformedNoise,
    ::testing::Values(
        std::make_pair(R"([1, 2])", "'segments' array"),
        std::make_pair(R"({"kind":"additive","segments":[]})", "unknown kind"),
        std::make_pair(R"({"segments":[{"quantiles":[1]}]})", "noise segment 0: needs an integer 'first'"),
        std::make_pair(R"({"segments":[{"first":0}]})", "noise segment 0: needs a 'quantiles' array"),
        std::make_pair(R"({"segments":[{"first":0,"quantiles":[]}]})", "noise segment 0: no quantiles"),
        std::make_pair(R"({"segments":[{"first":0,"quantiles":[1,"x"]}]})", "is not a number"),
        std::make_pair(R"({"segments":[{"first":0,"quantiles":[1,-2]}]})", "quantile 1 is negative"),
        std::make_pair(R"({"segments":[{"first":0,"quantiles":[2,1]}]})", "non-decreasing"),
        std::make_pair(R"({"segments":[{"first":5,"quantiles":[1]},{"first":5,"quantiles":[1]}]})",
                       "noise segment 1: segments must start at strictly increasing units")),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(DurationNoise, LongerRangesDrawFromTheSpreadMeasuredOverWindowsOfRecordedRanges) {
  // Neighbouring ranges alternate 0.5 and 1.5 times their prediction: any two of them together
  // take exactly their prediction, so ranges twice as long or longer get no spread at all.
  std::vector<NoiseSample> alternating;
  for (int i = 0; i < 200; ++i) alternating.push_back({100 * i, i % 2 == 0 ? 0.5 : 1.5, 100, 1.0});
  const DurationNoise cancelling = DurationNoise::from_samples(alternating, 11, 1000, 1, 30);
  ASSERT_FALSE(cancelling.lengths().empty());
  EXPECT_EQ(cancelling.lengths().front(), (SpreadAtLength{100, 1.0}));
  EXPECT_EQ(cancelling.lengths()[1], (SpreadAtLength{200, 0.0}));
  EXPECT_EQ(cancelling.lengths().back().units, 400);  // 200 / 8 = 25 windows of 8 is too few
  EXPECT_DOUBLE_EQ(cancelling.factor(0, 100, 0.95), cancelling.quantile(0, 0.95));
  EXPECT_DOUBLE_EQ(cancelling.factor(0, 50, 0.95), cancelling.quantile(0, 0.95));  // shorter: as recorded
  EXPECT_DOUBLE_EQ(cancelling.factor(0, 400, 0.95), cancelling.quantile(0, 0.5));
  EXPECT_DOUBLE_EQ(cancelling.factor(0, 100'000, 0.05), cancelling.quantile(0, 0.5));
  // Halfway between 100 and 200 units in log length: half the spread.
  EXPECT_NEAR(cancelling.relative_spread(141), 0.5, 0.01);

  // Independent ratios uniform on [0.5, 1.5] (p10-p90 width 0.8): the mean of two is triangular,
  // width 1 - 2 sqrt(0.05); of k >= 4 nearly normal, width 2 * 1.2816 * sqrt(1 / 12k).
  std::mt19937_64 rng(5);
  std::vector<NoiseSample> independent;
  for (int i = 0; i < 20000; ++i) independent.push_back({i, 0.5 + unit_draw(rng), 10, 1.0});
  const DurationNoise narrowing = DurationNoise::from_samples(independent, 11, 100000, 1, 30);
  EXPECT_NEAR(narrowing.relative_spread(20), (1 - 2 * std::sqrt(0.05)) / 0.8, 0.03);
  for (int k : {4, 16, 64}) {
    const double expected = 2 * 1.2816 * std::sqrt(1.0 / (12 * k)) / 0.8;
    EXPECT_NEAR(narrowing.relative_spread(10 * k), expected, 0.08 * expected) << k;
  }

  // The same stretch always hot (ratios rising along the sequence, no cancelling between
  // neighbours): windows keep nearly all the spread.
  std::vector<NoiseSample> drifting;
  for (int i = 0; i < 1000; ++i) drifting.push_back({i, 0.5 + i / 1000.0, 10, 1.0});
  EXPECT_GT(DurationNoise::from_samples(drifting, 11, 100000, 1, 30).relative_spread(160), 0.95);
}

TEST(DurationNoise, LengthsRoundTripAndAreValidated) {
  const DurationNoise noise({{0, {0.5, 1.0, 2.0}}}, {{100, 1.0}, {200, 0.6}});
  const DurationNoise loaded = DurationNoise::from_json(nlohmann::json::parse(noise.to_json().dump()), "model.json");
  EXPECT_EQ(loaded, noise);
  EXPECT_DOUBLE_EQ(loaded.factor(0, 200, 1.0), 1.0 + 0.6);
  try {
    DurationNoise({{0, {1.0}}}, {{100, 1.0}, {100, 0.5}}, {}, "m.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "m.json");
    EXPECT_THAT(e.problem(), HasSubstr("noise length 1: lengths must be positive and strictly increasing"));
  }
  nlohmann::json bad = noise.to_json();
  bad["lengths"][1]["relative_spread"] = 1.5;
  try {
    DurationNoise::from_json(bad, "m.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.problem(), HasSubstr("noise length 1: relative spread must be in [0, 1]"));
  }
}

}  // namespace
}  // namespace millrace::data
