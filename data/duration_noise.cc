#include "data/duration_noise.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "data/empirical_quantiles.h"
#include "data/error.h"

namespace millrace::data {

namespace {

NoiseSegment segment_of(std::int64_t first, std::vector<double> ratios, int knots) {
  std::sort(ratios.begin(), ratios.end());
  NoiseSegment segment{first, {}};
  const int n = std::max(knots, 2);
  for (int k = 0; k < n; ++k) segment.quantiles.push_back(sorted_quantile(ratios, static_cast<double>(k) / (n - 1)));
  return segment;
}

double spread(std::vector<double> ratios) {
  std::sort(ratios.begin(), ratios.end());
  return sorted_quantile(ratios, 0.9) - sorted_quantile(ratios, 0.1);
}

// Observed / predicted over disjoint windows of `size` consecutive samples (sorted along the
// sequence): the weighted mean of their ratios.
std::vector<double> window_ratios(const std::vector<NoiseSample>& samples, std::size_t size) {
  std::vector<double> out;
  for (std::size_t start = 0; start + size <= samples.size(); start += size) {
    double weighted = 0, weights = 0;
    for (std::size_t i = start; i < start + size; ++i) {
      weighted += samples[i].ratio * samples[i].weight;
      weights += samples[i].weight;
    }
    if (weights > 0) out.push_back(weighted / weights);
  }
  return out;
}

// The relative spread per window length, from single ranges (1) up to the longest window with
// `min_windows` windows; empty when the samples carry no lengths or do not vary.
std::vector<SpreadAtLength> measure_lengths(const std::vector<NoiseSample>& samples, std::size_t min_windows) {
  std::vector<std::int64_t> units;
  for (const NoiseSample& s : samples) units.push_back(s.units);
  std::nth_element(units.begin(), units.begin() + static_cast<std::ptrdiff_t>(units.size() / 2), units.end());
  const std::int64_t median_units = units[units.size() / 2];
  const double single = spread(window_ratios(samples, 1));
  if (median_units <= 0 || !(single > 0) || samples.size() < 2 * std::max<std::size_t>(min_windows, 1)) return {};
  std::vector<SpreadAtLength> out{{median_units, 1.0}};
  for (std::size_t size = 2; samples.size() / size >= std::max<std::size_t>(min_windows, 1); size *= 2) {
    const double relative = std::clamp(spread(window_ratios(samples, size)) / single, 0.0, out.back().relative_spread);
    out.push_back({median_units * static_cast<std::int64_t>(size), relative});
  }
  return out;
}

// Each run's ranges together over their prediction (weighted by it), counted on the ranges that
// lie where another run also recorded: a run alone on its stretch of the sequence is most of its
// own out-of-fold prediction there, and its factor would say little of the run. The samples are
// then divided by their run's factor. Fewer than RunSpread::kMinRuns runs, or a run with fewer
// than kMinShared such ranges: no factors, and why.
RunSpread take_run_factors(std::vector<NoiseSample>& samples) {
  constexpr std::size_t kMinShared = 10;
  std::map<std::size_t, std::pair<std::int64_t, std::int64_t>> spans;  // run -> [first unit, past its last)
  for (const NoiseSample& s : samples) {
    const std::int64_t past = s.first_unit + std::max<std::int64_t>(s.units, 1);
    auto [span, added] = spans.try_emplace(s.run, s.first_unit, past);
    span->second = {std::min(span->second.first, s.first_unit), std::max(span->second.second, past)};
  }
  RunSpread spread;
  if (spans.size() < RunSpread::kMinRuns) {
    spread.unidentified =
        (spans.size() == 1 ? std::string("one run fitted") : std::to_string(spans.size()) + " runs fitted") +
        ": how whole runs differ (load on the machine, another node pool) is not identified (at least " +
        std::to_string(RunSpread::kMinRuns) + " runs of the work), so the band covers each range's own noise only";
    return spread;
  }
  std::map<std::size_t, std::pair<double, double>> sums;  // run -> (observed, predicted) where shared
  std::map<std::size_t, std::size_t> shared;
  for (const NoiseSample& s : samples) {
    const std::int64_t past = s.first_unit + std::max<std::int64_t>(s.units, 1);
    const bool covered = std::any_of(spans.begin(), spans.end(), [&](const auto& other) {
      return other.first != s.run && s.first_unit < other.second.second && other.second.first < past;
    });
    if (!covered) continue;
    sums[s.run].first += s.ratio * s.weight;
    sums[s.run].second += s.weight;
    ++shared[s.run];
  }
  std::map<std::size_t, double> factor;
  for (const auto& [run, span] : spans) {
    const auto [observed, predicted] = sums[run];
    if (shared[run] < kMinShared || !(observed > 0 && predicted > 0)) {
      spread.unidentified = "fitted run " + std::to_string(run + 1) + " has " + std::to_string(shared[run]) +
                            " ranges where another run also recorded (at least " + std::to_string(kMinShared) +
                            "): its level cannot be told from the model's own error along the sequence, so the band "
                            "covers each range's own noise only";
      return spread;
    }
    spread.factors.push_back(factor[run] = observed / predicted);
  }
  for (NoiseSample& s : samples) s.ratio /= factor.at(s.run);
  return spread;
}

}  // namespace

DurationNoise::DurationNoise(std::vector<NoiseSegment> segments, std::vector<SpreadAtLength> lengths, RunSpread runs,
                             const std::string& input)
    : segments_(std::move(segments)), lengths_(std::move(lengths)), runs_(std::move(runs)) {
  for (std::size_t i = 0; i < lengths_.size(); ++i) {
    const SpreadAtLength& l = lengths_[i];
    const std::string where = "noise length " + std::to_string(i);
    if (l.units <= 0 || (i > 0 && l.units <= lengths_[i - 1].units)) {
      throw Error(input, where + ": lengths must be positive and strictly increasing (" + std::to_string(l.units) + ")");
    }
    if (!std::isfinite(l.relative_spread) || l.relative_spread < 0 || l.relative_spread > 1) {
      throw Error(input, where + ": relative spread must be in [0, 1] (" + std::to_string(l.relative_spread) + ")");
    }
  }
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const NoiseSegment& segment = segments_[i];
    const std::string where = "noise segment " + std::to_string(i);
    if (i > 0 && segment.first <= segments_[i - 1].first) {
      throw Error(input, where + ": segments must start at strictly increasing units (" + std::to_string(segment.first) +
                             " after " + std::to_string(segments_[i - 1].first) + ")");
    }
    if (segment.quantiles.empty()) throw Error(input, where + ": no quantiles");
    for (std::size_t k = 0; k < segment.quantiles.size(); ++k) {
      const double q = segment.quantiles[k];
      if (!std::isfinite(q) || q < 0) {
        throw Error(input, where + ": quantile " + std::to_string(k) + " is negative or not finite (" + std::to_string(q) + ")");
      }
      if (k > 0 && q < segment.quantiles[k - 1]) {
        throw Error(input, where + ": quantiles must be non-decreasing (quantile " + std::to_string(k) + ")");
      }
    }
  }
}

DurationNoise DurationNoise::from_samples(std::vector<NoiseSample> samples, int knots, std::size_t min_per_segment,
                                          int max_segments, std::size_t min_windows) {
  std::erase_if(samples, [](const NoiseSample& s) { return !std::isfinite(s.ratio) || s.ratio < 0; });
  if (samples.empty()) return DurationNoise();
  RunSpread runs = take_run_factors(samples);
  std::stable_sort(samples.begin(), samples.end(),
                   [](const NoiseSample& a, const NoiseSample& b) { return a.first_unit < b.first_unit; });
  const std::size_t wanted = std::clamp<std::size_t>(samples.size() / std::max<std::size_t>(min_per_segment, 1), 1,
                                                     static_cast<std::size_t>(std::max(max_segments, 1)));
  std::vector<NoiseSegment> segments;
  std::vector<double> ratios;
  std::int64_t first = samples.front().first_unit;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    // Segment boundaries at equal sample counts, moved forward past ranges sharing a first unit.
    const std::size_t boundary = (segments.size() + 1) * samples.size() / wanted;
    if (i >= boundary && samples[i].first_unit != samples[i - 1].first_unit && segments.size() + 1 < wanted) {
      segments.push_back(segment_of(first, std::move(ratios), knots));
      ratios.clear();
      first = samples[i].first_unit;
    }
    ratios.push_back(samples[i].ratio);
  }
  segments.push_back(segment_of(first, std::move(ratios), knots));
  return DurationNoise(std::move(segments), measure_lengths(samples, min_windows), std::move(runs));
}

bool DurationNoise::empty() const { return segments_.empty(); }

const NoiseSegment& DurationNoise::segment_at(std::int64_t first_unit) const {
  const auto after = std::upper_bound(segments_.begin() + 1, segments_.end(), first_unit,
                                      [](std::int64_t unit, const NoiseSegment& s) { return unit < s.first; });
  return *(after - 1);
}

double DurationNoise::quantile(std::int64_t first_unit, double p) const {
  if (empty()) return 1;
  const std::vector<double>& q = segment_at(first_unit).quantiles;
  return sorted_quantile(q, p);
}

double DurationNoise::relative_spread(std::int64_t units) const {
  if (lengths_.empty() || units <= lengths_.front().units) return 1;
  if (units >= lengths_.back().units) return lengths_.back().relative_spread;
  const auto above = std::upper_bound(lengths_.begin(), lengths_.end(), units,
                                      [](std::int64_t u, const SpreadAtLength& l) { return u < l.units; });
  const SpreadAtLength& low = *(above - 1);
  const double t = std::log(static_cast<double>(units) / static_cast<double>(low.units)) /
                   std::log(static_cast<double>(above->units) / static_cast<double>(low.units));
  return low.relative_spread + t * (above->relative_spread - low.relative_spread);
}

double DurationNoise::factor(std::int64_t first_unit, std::int64_t units, double u) const {
  if (empty()) return 1;
  const double median = quantile(first_unit, 0.5);
  return std::max(0.0, median + (quantile(first_unit, u) - median) * relative_spread(units));
}

nlohmann::json DurationNoise::to_json() const {
  nlohmann::json segments = nlohmann::json::array();
  for (const NoiseSegment& segment : segments_) {
    segments.push_back({{"first", segment.first}, {"quantiles", segment.quantiles}});
  }
  nlohmann::json out = {{"kind", "multiplicative-quantiles"}, {"segments", segments}};
  if (!lengths_.empty()) {
    nlohmann::json lengths = nlohmann::json::array();
    for (const SpreadAtLength& l : lengths_) lengths.push_back({{"units", l.units}, {"relative_spread", l.relative_spread}});
    out["lengths"] = lengths;
  }
  if (runs_.identified()) out["run_factors"] = runs_.to_json();
  return out;
}

DurationNoise DurationNoise::from_json(const nlohmann::json& json, const std::string& input) {
  if (!json.is_object() || !json.contains("segments") || !json.at("segments").is_array()) {
    throw Error(input, "noise: must be an object with a 'segments' array");
  }
  if (json.contains("kind") && json.at("kind") != "multiplicative-quantiles") {
    throw Error(input, "noise: unknown kind " + json.at("kind").dump() + " (expected \"multiplicative-quantiles\")");
  }
  std::vector<NoiseSegment> segments;
  const nlohmann::json& items = json.at("segments");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string where = "noise segment " + std::to_string(i);
    const nlohmann::json& item = items[i];
    if (!item.is_object() || !item.contains("first") || !item.at("first").is_number_integer()) {
      throw Error(input, where + ": needs an integer 'first'");
    }
    if (!item.contains("quantiles") || !item.at("quantiles").is_array()) {
      throw Error(input, where + ": needs a 'quantiles' array");
    }
    NoiseSegment segment{item.at("first").get<std::int64_t>(), {}};
    for (const nlohmann::json& q : item.at("quantiles")) {
      if (!q.is_number()) throw Error(input, where + ": quantile " + q.dump() + " is not a number");
      segment.quantiles.push_back(q.get<double>());
    }
    segments.push_back(std::move(segment));
  }
  std::vector<SpreadAtLength> lengths;
  if (json.contains("lengths")) {
    if (!json.at("lengths").is_array()) throw Error(input, "noise: 'lengths' must be an array");
    for (const nlohmann::json& item : json.at("lengths")) {
      if (!item.is_object() || !item.contains("units") || !item.at("units").is_number_integer() ||
          !item.contains("relative_spread") || !item.at("relative_spread").is_number()) {
        throw Error(input, "noise length " + std::to_string(lengths.size()) + ": needs an integer 'units' and a number 'relative_spread'");
      }
      lengths.push_back({item.at("units").get<std::int64_t>(), item.at("relative_spread").get<double>()});
    }
  }
  const RunSpread runs = json.contains("run_factors") ? RunSpread::from_json(json.at("run_factors"), input) : RunSpread{};
  return DurationNoise(std::move(segments), std::move(lengths), runs, input);
}

}  // namespace millrace::data
