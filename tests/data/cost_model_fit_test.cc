// The default fit (the recording's own resolution, smoothness penalty chosen by blocked
// cross-validation) against recordings drawn from a known truth (data/synthetic_recording.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/cost_model_fit.h"
#include "data/error.h"
#include "data/model_file.h"
#include "data/synthetic_recording.h"
#include "tests/support/scratch_dir.h"

namespace millrace::data {
namespace {

using ::testing::HasSubstr;

const Range kSpan{0, 1'000'000};

CostModel truth() { return smooth_truth(kSpan, 2'000); }

std::vector<Observation> recording(bool varied, std::uint64_t seed) {
  SyntheticRecordingOptions options;
  options.span = kSpan;
  options.mean_length = 1'000;
  options.varied_lengths = varied;
  options.gap_probability = varied ? 0.1 : 0;
  options.noise_sigma = 0.05;
  options.seed = seed;
  return synthetic_recording(truth(), options);
}

TEST(CostModelFitTruth, VariedLengthsAndGapsRecoverTotalWorkAndTheDensities) {
  const std::vector<Observation> observations = recording(true, 21);
  const FitReport report = fit_cost_model(observations, FitOptions{}, "synthetic (b)");
  const CostModel& fitted = report.model;
  const CostModel reference = truth();
  double true_work = 0, fitted_work = 0;
  for (const Observation& o : observations) {
    true_work += reference.work(o.range.first, o.range.end());
    fitted_work += fitted.work(o.range.first, o.range.end());
  }
  EXPECT_NEAR(fitted_work / true_work, 1.0, 0.02);
  // Densities: the mean over every stretch of 20,000 units (about 20 ranges) within 25% of the
  // truth, except the two stretches holding an edge of the 4x hot stretch (a step the smooth fit
  // rounds off), which must still be within 40%.
  for (std::int64_t first = kSpan.first; first < kSpan.end(); first += 20'000) {
    const double expected = reference.work(first, first + 20'000);
    const double got = fitted.work(first, first + 20'000);
    const bool at_step = std::abs(first + 10'000 - 675'000) < 10'000 || std::abs(first + 10'000 - 725'000) < 10'000;
    EXPECT_NEAR(got / expected, 1.0, at_step ? 0.40 : 0.25) << "stretch at " << first;
  }
  EXPECT_TRUE(report.split_identifiable) << report.identifiability_note;
  EXPECT_THAT(report.identifiability_note, HasSubstr("separable"));
}

TEST(CostModelFitTruth, EqualLengthsAreNotIdentifiableButSameLengthRangesArePredicted) {
  const FitReport report = fit_cost_model(recording(false, 22), FitOptions{}, "synthetic (a)");
  EXPECT_FALSE(report.split_identifiable);
  EXPECT_THAT(report.identifiability_note, HasSubstr("NOT identifiable"));
  EXPECT_THAT(report.identifiability_note, HasSubstr("same length (1000)"));
  // New ranges of the recorded length, cut half a range off the recorded boundaries: their
  // total and each within a tolerance of the truth (5% noise on the recorded durations).
  const CostModel reference = truth();
  double true_total = 0, fitted_total = 0;
  for (std::int64_t first = 500; first + 1'000 <= kSpan.end(); first += 1'000) {
    const Range range{first, 1'000};
    const double expected = reference.cost(range);
    const double got = report.model.cost(range);
    true_total += expected;
    fitted_total += got;
    const bool near_step = std::abs(first - 675'000) < 2'000 || std::abs(first - 725'000) < 2'000;
    if (!near_step) {
      EXPECT_NEAR(got / expected, 1.0, 0.15) << "range at " << first;
    }
  }
  EXPECT_NEAR(fitted_total / true_total, 1.0, 0.01);
}

// A daily chain series as a user imports it: one row per day, rows of slowly drifting length
// (blocks per day), no start-up at all, a density that changes by day. Durations alone cannot
// tell a per-row constant from per-unit work here.
TEST(CostModelFitTruth, NeverCallsASplitSeparableWhenTheDataCannotSeparateIt) {
  std::mt19937_64 rng(23);
  const auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<Observation> days;
  std::int64_t first = 0;
  for (int day = 0; day < 1'000; ++day) {
    const double t = day / 1'000.0;
    const auto count = static_cast<std::int64_t>(6'000 + 800 * std::sin(5 * t) + 60 * (unit() - 0.5));
    const double density = 300 * (1 + 3 * t * t) * (1 + 0.3 * (unit() - 0.5));  // busy later years
    days.push_back({{first, count}, static_cast<Micros>(density * static_cast<double>(count)), std::nullopt});
    first += count;
  }
  const FitReport report = fit_cost_model(days, FitOptions{}, "daily series");
  if (report.split_identifiable) {
    // Only acceptable when the split it claims is the true one: no start-up.
    EXPECT_LT(report.startup_share, 2 * report.startup_share_sd) << report.identifiability_note;
  } else {
    EXPECT_THAT(report.identifiability_note, HasSubstr("NOT identifiable"));
  }
  FitOptions coarse;
  coarse.bins = 32;
  const FitReport binned = fit_cost_model(days, coarse, "daily series");
  if (binned.split_identifiable) {
    EXPECT_LT(binned.startup_share, 2 * binned.startup_share_sd) << binned.identifiability_note;
  }
}

// Equal lengths with the work part recorded (as Stellar's apply time): durations alone cannot
// split s from w, the recorded work time can, and ranges of other lengths are then predicted.
TEST(CostModelFitTruth, RecordedWorkTimeSeparatesWhatDurationsCannot) {
  const CostModel reference = truth();
  std::vector<Observation> observations = recording(false, 24);
  for (Observation& o : observations) {
    const double factor = static_cast<double>(o.duration) / reference.cost(o.range);
    o.work_time = static_cast<Micros>(reference.work(o.range.first, o.range.end()) * factor);
  }
  const FitReport report = fit_cost_model(observations, FitOptions{}, "synthetic (a) with work time");
  EXPECT_EQ(report.method, "separate");
  ASSERT_TRUE(report.choice.has_value());
  EXPECT_FALSE(report.choice->joint_clearly_better());
  EXPECT_TRUE(report.split_identifiable);
  EXPECT_THAT(report.identifiability_note, HasSubstr("the recorded work time separates start-up from per-unit work"));
  EXPECT_THAT(report.identifiability_note, HasSubstr("From durations alone: the split"));
  // Ranges three times the recorded length, away from the hot stretch's edges: within 10%.
  for (std::int64_t first = 10'000; first + 3'000 <= kSpan.end(); first += 50'000) {
    if (std::abs(first - 675'000) < 5'000 || std::abs(first - 725'000) < 5'000) continue;
    const Range range{first, 3'000};
    EXPECT_NEAR(report.model.cost(range) / reference.cost(range), 1.0, 0.10) << "range at " << first;
  }
}

// A work time that says nothing of the work (a random share of each duration): the joint fit
// predicts the durations clearly better out of fold and is kept.
TEST(CostModelFitTruth, AWorkTimeThatExplainsNothingLeavesTheJointFit) {
  std::vector<Observation> observations = recording(true, 25);
  std::mt19937_64 rng(26);
  for (Observation& o : observations) {
    const double share = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    o.work_time = static_cast<Micros>(static_cast<double>(o.duration) * share);
  }
  const FitReport report = fit_cost_model(observations, FitOptions{}, "noise as work time");
  ASSERT_TRUE(report.choice.has_value());
  EXPECT_TRUE(report.choice->joint_clearly_better())
      << report.choice->mean_difference << " +- " << report.choice->standard_error;
  EXPECT_EQ(report.method, "joint");
  EXPECT_THAT(format_fit_report(report), HasSubstr("the joint fit's blocked-CV error is lower by more than two standard errors"));
}

TEST(CostModelFitTruth, TheFoldsFollowTheSequenceNotTheInputOrder) {
  std::vector<Observation> observations = recording(true, 24);
  const FitReport in_order = fit_cost_model(observations, FitOptions{}, "synthetic");
  std::mt19937_64 rng(5);
  for (std::size_t i = observations.size(); i > 1; --i) std::swap(observations[i - 1], observations[rng() % i]);
  const FitReport shuffled = fit_cost_model(observations, FitOptions{}, "synthetic");
  EXPECT_DOUBLE_EQ(in_order.joint.cv_rmse_s, shuffled.joint.cv_rmse_s);
  EXPECT_EQ(in_order.joint.penalty, shuffled.joint.penalty);
}

TEST(CostModelFitTruth, TheNoiseComesFromOutOfFoldResidualsAlongTheSequence) {
  const FitReport report = fit_cost_model(recording(true, 25), FitOptions{}, "synthetic");
  const DurationNoise& noise = report.model.noise();
  ASSERT_FALSE(noise.empty());
  EXPECT_GT(noise.segments().size(), 1u);
  // 5% log-normal noise plus the model's own error: the middle 80% of factors spans at least the
  // noise's own (exp(+-1.28 * 0.05)) and is centred near one.
  for (const NoiseSegment& segment : noise.segments()) {
    EXPECT_NEAR(noise.quantile(segment.first, 0.5), 1.0, 0.05) << "segment at " << segment.first;
    EXPECT_GT(noise.quantile(segment.first, 0.9) / noise.quantile(segment.first, 0.1), std::exp(2 * 1.28 * 0.05) * 0.9);
  }
}

// A fit of `scripts/make-timing-csv.py 10` (100,457 ranges) wrote a 14.9 MB model that no
// reader accepted (over 8 MiB): a recording of more distinct stretches than a model holds has
// neighbouring ones merged into at most kMaxModelBins bins, the fit says so, and its model file
// is written within what the reader accepts and reads back.
TEST(CostModelFitTruth, ARecordingOfMoreStretchesThanAModelHoldsIsMergedAndItsFileReadsBack) {
  SyntheticRecordingOptions options;
  options.span = {0, 4'000'000};
  options.mean_length = 100;
  options.varied_lengths = true;
  options.noise_sigma = 0.05;
  options.seed = 5;
  const std::vector<Observation> observations = synthetic_recording(smooth_truth(options.span, 2'000), options);
  ASSERT_GT(observations.size(), kMaxModelBins);
  FitOptions fit;
  fit.penalties = {1.0};
  const FitReport report = fit_cost_model(observations, fit, "synthetic");
  EXPECT_LE(report.model.bins().size(), kMaxModelBins);
  EXPECT_GT(report.model.bins().size(), kMaxModelBins / 2);
  EXPECT_THAT(report.resolution, HasSubstr("stretches merged into " + std::to_string(report.model.bins().size()) +
                                           ": a model has at most 32768 bins)"));
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  report.model.save(path, fit_summary_json(report));
  EXPECT_LE(std::filesystem::file_size(path), kMaxModelBytes);
  EXPECT_EQ(CostModel::load(path).bins(), report.model.bins());
  FitOptions too_many;
  too_many.bins = 40'000;
  EXPECT_THROW(fit_cost_model(observations, too_many, "synthetic"), Error);
}

TEST(CostModelFitTruth, RefusesOptionsOutOfRangeNamingTheInput) {
  FitOptions options;
  options.penalties = {1.0, -2.0};
  try {
    fit_cost_model(recording(true, 26), options, "store.db runs 1");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "store.db runs 1");
    EXPECT_THAT(e.problem(), HasSubstr("penalties must be positive"));
  }
}

}  // namespace
}  // namespace millrace::data
