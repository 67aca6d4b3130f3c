// Empirical quantiles: a distribution kept as its quantiles at evenly spaced probabilities (0,
// 1/(n-1), ..., 1), each taken from the sorted observations by linear interpolation between order
// statistics, and read back (a quantile, a seeded draw) the same way between the knots. The
// duration noise of the cost model (data/duration_noise.h) and the fitted cluster's delays
// (data/cluster_model.h) are kept so: a fixed, small size whatever the observation count, the
// named percentiles exact at their knots, draws continuous between them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace millrace::data {

// The p-quantile of sorted values, interpolating linearly between order statistics (p clamped to
// [0, 1]); `sorted` must not be empty.
double sorted_quantile(const std::vector<double>& sorted, double p);

// A value known to lie in [low, high]: exact when they are equal, bounded from above alone
// (left-censored) when low is 0 for a non-negative quantity.
struct CensoredValue {
  double low = 0, high = 0;
};

struct EmpiricalQuantiles {
  // 101 knots: every whole percentile, so p50, p90 and p99 are knots and a draw above p99 lies
  // between it and the largest observation.
  static constexpr int kKnots = 101;

  std::size_t observations = 0;  // how many values the knots rest on
  std::vector<double> knots;     // non-decreasing; empty when there were no observations

  // The quantiles of `values` (any order); no values: empty.
  static EmpiricalQuantiles of(std::vector<double> values);
  // The quantiles of values each known only to lie in [low, high] (low == high: known exactly),
  // by Turnbull's nonparametric maximum-likelihood estimate for interval-censored data: the
  // probability sits on the innermost intervals (a lower end followed by an upper end with no
  // other end between), its masses found by the self-consistency (EM) iteration; within an
  // innermost interval the data cannot place it, and it is spread evenly. Values with an end that
  // is not finite, or low > high, are left out; `observations` counts the others; none: empty.
  // All values exact, this reads the knots off the steps of the empirical distribution, where
  // `of` interpolates between order statistics: the cluster fit calls `of` then.
  static EmpiricalQuantiles of_interval_censored(std::vector<CensoredValue> values);
  bool empty() const { return knots.empty(); }
  double quantile(double p) const;  // 0 when empty
  double draw(double u) const { return quantile(u); }  // u uniform in [0, 1)

  // {"observations", key: knots}; from_json throws Error naming `input` and `where` (the field's
  // path, e.g. "cluster.startup.pooled") for a missing or mistyped key, knots that are not finite
  // numbers, decreasing ones, or ones outside [0, max] (`max_text` says what max is).
  nlohmann::json to_json(const char* key) const;
  static EmpiricalQuantiles from_json(const nlohmann::json& json, const char* key, double max,
                                      const std::string& max_text, const std::string& where, const std::string& input);

  friend bool operator==(const EmpiricalQuantiles&, const EmpiricalQuantiles&) = default;
};

}  // namespace millrace::data
