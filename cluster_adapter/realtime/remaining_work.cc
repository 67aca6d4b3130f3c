#include "cluster_adapter/realtime/remaining_work.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace millrace::cluster_adapter {

namespace {

// Points of the midpoint rule over u: the factor is piecewise linear in u between the noise's
// quantile knots (at most a few dozen), so this is within a fraction of a percent of the integral.
constexpr int kIntegrationPoints = 256;
// z of the normal distribution's 90th percentile.
constexpr double kZ90 = 1.2815515655446004;
// z of the 99.5th percentile: a run ratio beyond it (either way) is outside the model's noise.
constexpr double kZ995 = 2.5758293035489004;
// Items observed before the run's own ratio weighs as much as the model.
constexpr double kPriorItems = 10;

struct FactorMoments {
  double mean = 1;
  double variance = 0;
};

FactorMoments factor_moments(const data::DurationNoise& noise, std::int64_t first, std::int64_t units) {
  if (noise.empty()) return {};
  double sum = 0;
  double squares = 0;
  for (int k = 0; k < kIntegrationPoints; ++k) {
    const double f = noise.factor(first, units, (k + 0.5) / kIntegrationPoints);
    sum += f;
    squares += f * f;
  }
  const double mean = sum / kIntegrationPoints;
  return {mean, std::max(0.0, squares / kIntegrationPoints - mean * mean)};
}

// Items in one noise segment with one length share their factor's moments.
class FactorMomentsCache {
 public:
  explicit FactorMomentsCache(const data::DurationNoise& noise) : noise_(noise) {}
  FactorMoments at(std::int64_t first, std::int64_t units) {
    const auto& segments = noise_.segments();
    auto after = std::upper_bound(segments.begin(), segments.end(), first,
                                  [](std::int64_t unit, const data::NoiseSegment& s) { return unit < s.first; });
    const std::size_t segment = after == segments.begin() ? 0 : static_cast<std::size_t>(after - segments.begin() - 1);
    auto [entry, added] = cache_.try_emplace({segment, units});
    if (added) entry->second = factor_moments(noise_, first, units);
    return entry->second;
  }

 private:
  const data::DurationNoise& noise_;
  std::map<std::pair<std::size_t, std::int64_t>, FactorMoments> cache_;
};


data::Micros spread_over(double micros, int slots) {
  return static_cast<data::Micros>(std::llround(std::max(0.0, micros) / std::max(slots, 1)));
}

}  // namespace

RemainingWork::RemainingWork(const std::vector<data::WorkItem>& items, const data::DurationNoise& noise)
    : run_median_(noise.runs().median()), run_log_sd_(noise.runs().log_sd()) {
  FactorMomentsCache factors(noise);
  for (const data::WorkItem& item : items) {
    // Work that is not a range: the noise of the sequence's start, at the recorded length.
    const FactorMoments factor = item.range ? factors.at(item.range->first, item.range->count) : factors.at(0, 0);
    const double p = static_cast<double>(item.predicted);
    const Entry entry{item.predicted, p * factor.mean, p * p * factor.variance, false};
    if (!items_.emplace(item.id, entry).second) continue;
    ++left_;
    predicted_ += entry.predicted;
    left_predictions_.insert(entry.predicted);
    mean_ += entry.mean;
    variance_ += entry.variance;
  }
}

void RemainingWork::settle(const std::string& item_id) {
  auto found = items_.find(item_id);
  if (found == items_.end() || found->second.settled) return;
  Entry& entry = found->second;
  entry.settled = true;
  --left_;
  predicted_ -= entry.predicted;
  left_predictions_.erase(left_predictions_.find(entry.predicted));
  mean_ -= entry.mean;
  variance_ -= entry.variance;
  if (left_ == 0) mean_ = variance_ = 0;  // no rounding left over once nothing is
}

void RemainingWork::observe(const std::string& item_id, data::Micros actual) {
  auto found = items_.find(item_id);
  if (found == items_.end() || found->second.settled) return;
  const Entry& entry = found->second;
  if (entry.predicted > 0) {
    ++observed_;
    observed_actual_ += static_cast<double>(actual);
    observed_mean_ += entry.mean;
    observed_variance_ += entry.variance;
  }
  settle(item_id);
}

std::optional<EtaBand> RemainingWork::eta(int slots) const {
  EtaBand band;
  double scale = 1;
  double scale_sd = 0;  // of the blended scale, from the model's noise over the items observed
  if (run_log_sd_ > 0) {
    // The run's level as the recorded runs give it, updated by what this run showed (weighed by
    // the precision of each).
    scale = run_median_;
    scale_sd = run_median_ * run_log_sd_;
  }
  if (observed_ > 0 && observed_mean_ > 0) {
    band.observed = observed_;
    band.run_ratio = observed_actual_ / observed_mean_;
    const double relative_sd = std::sqrt(observed_variance_) / observed_mean_;
    if (run_log_sd_ > 0) {
      band.outside_model = observed_ >= 5 && std::abs(std::log(band.run_ratio / run_median_)) >
                                                 kZ995 * std::hypot(relative_sd, run_log_sd_);
      const double ratio_variance = std::pow(band.run_ratio * relative_sd, 2);
      const double prior_variance = scale_sd * scale_sd;
      scale += prior_variance / (prior_variance + ratio_variance) * (band.run_ratio - scale);
      scale_sd = std::sqrt(prior_variance * ratio_variance / (prior_variance + ratio_variance));
    } else {
      band.outside_model = observed_ >= 5 && std::abs(band.run_ratio - 1) > kZ995 * relative_sd;
      const double weight = static_cast<double>(observed_) / (static_cast<double>(observed_) + kPriorItems);
      scale = 1 + weight * (band.run_ratio - 1);
      scale_sd = weight * band.run_ratio * relative_sd;
    }
  }
  if (left_ == 0) return band;
  if (predicted_ <= 0) return std::nullopt;
  const double mean = scale * mean_;
  const double sd = std::sqrt(std::max(0.0, scale * scale * variance_ + scale_sd * scale_sd * mean_ * mean_));
  // No more slots than items left, and no sooner than the longest of them.
  const int busy = static_cast<int>(std::min<std::size_t>(std::max(slots, 1), left_));
  const double longest = scale * static_cast<double>(*left_predictions_.rbegin());
  const auto at_least_longest = [&](double micros) { return std::max(spread_over(micros, busy), spread_over(longest, 1)); };
  band.expected = at_least_longest(scale * static_cast<double>(predicted_));
  band.p10 = at_least_longest(mean - kZ90 * sd);
  band.p90 = at_least_longest(mean + kZ90 * sd);
  return band;
}

std::string EtaBand::note() const {
  if (!outside_model) return "";
  char text[64];
  std::snprintf(text, sizeof text, "ranges run %.2fx the model", run_ratio);
  return text;
}

}  // namespace millrace::cluster_adapter
