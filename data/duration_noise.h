// How far real durations stray from the cost model's prediction: a multiplicative factor
// (observed / predicted) whose distribution may change along the sequence. The fit builds it
// from out-of-fold (blocked cross-validation) residuals, so it describes the error of predicting
// ranges the model was not fitted on; simulations draw range durations from it and reports draw
// its quantiles as an uncertainty band. It is stored as empirical quantiles per segment of the
// sequence: segment i applies to ranges starting at or after its `first` unit (the first segment
// also to anything before it), and factors between the quantile knots are interpolated linearly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace millrace::data {

struct NoiseSegment {
  std::int64_t first = 0;          // first unit of the stretch the segment describes
  std::vector<double> quantiles;   // factor at probabilities 0, 1/(n-1), ..., 1; non-decreasing

  friend bool operator==(const NoiseSegment&, const NoiseSegment&) = default;
};

// One out-of-fold residual: a range starting at `first_unit` took `ratio` times its prediction.
struct NoiseSample {
  std::int64_t first_unit = 0;
  double ratio = 1;
};

class DurationNoise {
 public:
  DurationNoise() = default;  // no noise: factor 1 everywhere
  // Throws Error naming `input` unless the segments are sorted by strictly increasing `first`
  // and each has at least one finite, non-negative, non-decreasing quantile.
  explicit DurationNoise(std::vector<NoiseSegment> segments, const std::string& input = "duration noise");
  // Empirical quantiles (`knots` of them, at evenly spaced probabilities) of the samples' ratios in
  // contiguous segments along the sequence: as many segments as give each at least
  // `min_per_segment` samples, at most `max_segments`. Samples need not be sorted; non-finite or
  // negative ratios are skipped. No samples: no noise.
  static DurationNoise from_samples(std::vector<NoiseSample> samples, int knots, std::size_t min_per_segment,
                                    int max_segments);

  bool empty() const;
  const std::vector<NoiseSegment>& segments() const { return segments_; }
  double factor(std::int64_t first_unit, double u) const;    // multiplier for a range starting there, u uniform in (0,1)
  double quantile(std::int64_t first_unit, double p) const;  // the factor's p-quantile there (for bands)

  nlohmann::json to_json() const;
  // Throws Error naming `input` for missing keys, wrong types and invalid segments.
  static DurationNoise from_json(const nlohmann::json& json, const std::string& input);

  friend bool operator==(const DurationNoise&, const DurationNoise&) = default;

 private:
  const NoiseSegment& segment_at(std::int64_t first_unit) const;

  std::vector<NoiseSegment> segments_;
};

}  // namespace millrace::data
