// How far real durations stray from the cost model's prediction: a multiplicative factor
// (observed / predicted) whose distribution may change along the sequence. The fit builds it
// from out-of-fold (blocked cross-validation) residuals, so it describes the error of predicting
// ranges the model was not fitted on; simulations draw range durations from it and reports draw
// its quantiles as an uncertainty band. It is stored as empirical quantiles per segment of the
// sequence: segment i applies to ranges starting at or after its `first` unit (the first segment
// also to anything before it), and factors between the quantile knots are interpolated linearly.
//
// The residuals are those of recorded ranges; a range several times as long sums several such
// stretches whose errors partly cancel. How much they cancel is measured, not assumed: the spread
// (p90 - p10) of observed / predicted over windows of 2, 4, 8, ... consecutive recorded ranges,
// relative to single ranges, is kept per window length, and a longer range's factor is pulled
// towards its segment's median by that ratio (interpolated in log length; held at the longest
// measured window beyond it, since nothing longer was seen).
//
// Samples of several runs also show how whole runs differ (data/run_spread.h): each run's
// samples are divided by their run's factor before the segments are built, so the segments hold
// each range's noise within a run, and the run factors are kept beside them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/run_spread.h"

namespace millrace::data {

struct NoiseSegment {
  std::int64_t first = 0;          // first unit of the stretch the segment describes
  std::vector<double> quantiles;   // factor at probabilities 0, 1/(n-1), ..., 1; non-decreasing

  friend bool operator==(const NoiseSegment&, const NoiseSegment&) = default;
};

// One out-of-fold residual: a range of `units` units starting at `first_unit` took `ratio` times
// its prediction, `weight` (the prediction) weighs it when windows of ranges are summed.
struct NoiseSample {
  std::int64_t first_unit = 0;
  double ratio = 1;
  std::int64_t units = 0;  // 0: unknown (no narrowing with length is measured)
  double weight = 1;
  std::size_t run = 0;  // which of the fitted runs recorded it
};

// The spread of the factor for ranges `units` long relative to the recorded ranges' own.
struct SpreadAtLength {
  std::int64_t units = 0;
  double relative_spread = 1;

  friend bool operator==(const SpreadAtLength&, const SpreadAtLength&) = default;
};

class DurationNoise {
 public:
  DurationNoise() = default;  // no noise: factor 1 everywhere
  // Throws Error naming `input` unless the segments are sorted by strictly increasing `first`
  // and each has at least one finite, non-negative, non-decreasing quantile, and the lengths are
  // strictly increasing and positive with relative spreads in [0, 1].
  explicit DurationNoise(std::vector<NoiseSegment> segments, std::vector<SpreadAtLength> lengths = {},
                         RunSpread runs = {}, const std::string& input = "duration noise");
  // Empirical quantiles (`knots` of them, at evenly spaced probabilities) of the samples' ratios in
  // contiguous segments along the sequence: as many segments as give each at least
  // `min_per_segment` samples, at most `max_segments`. Samples need not be sorted; non-finite or
  // negative ratios are skipped. No samples: no noise. The spread per window length is measured
  // for windows of 2, 4, ... samples while there are at least `min_windows` of them. Samples of
  // two runs or more give the run spread, and are taken relative to their run's factor.
  static DurationNoise from_samples(std::vector<NoiseSample> samples, int knots, std::size_t min_per_segment,
                                    int max_segments, std::size_t min_windows = 30);

  bool empty() const;
  const std::vector<NoiseSegment>& segments() const { return segments_; }
  const std::vector<SpreadAtLength>& lengths() const { return lengths_; }
  const RunSpread& runs() const { return runs_; }
  // Multiplier for a range of `units` units starting at `first_unit`, u uniform in (0, 1).
  double factor(std::int64_t first_unit, std::int64_t units, double u) const;
  // The factor's p-quantile for a range of the recorded length starting there (for bands).
  double quantile(std::int64_t first_unit, double p) const;
  // How much narrower the factor's spread is for ranges `units` long (1: as recorded).
  double relative_spread(std::int64_t units) const;

  nlohmann::json to_json() const;
  // Throws Error naming `input` for missing keys, wrong types and invalid segments.
  static DurationNoise from_json(const nlohmann::json& json, const std::string& input);

  friend bool operator==(const DurationNoise&, const DurationNoise&) = default;

 private:
  const NoiseSegment& segment_at(std::int64_t first_unit) const;

  std::vector<NoiseSegment> segments_;
  std::vector<SpreadAtLength> lengths_;
  RunSpread runs_;
};

}  // namespace millrace::data
