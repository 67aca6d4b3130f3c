#include "data/empirical_quantiles.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "data/error.h"

namespace millrace::data {

double sorted_quantile(const std::vector<double>& sorted, double p) {
  if (sorted.size() == 1) return sorted.front();
  const double position = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  if (below + 1 >= sorted.size()) return sorted.back();
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

EmpiricalQuantiles EmpiricalQuantiles::of(std::vector<double> values) {
  EmpiricalQuantiles out;
  out.observations = values.size();
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  for (int k = 0; k < kKnots; ++k) out.knots.push_back(sorted_quantile(values, static_cast<double>(k) / (kKnots - 1)));
  return out;
}

namespace {

// Turnbull's innermost intervals of `values`, ascending and disjoint: each lower end directly
// followed by an upper end when every end is sorted, lower ends first at equal values (the
// intervals are closed, so an exact value is one of its own).
std::vector<CensoredValue> innermost_intervals(const std::vector<CensoredValue>& values) {
  std::vector<std::pair<double, bool>> ends;  // (value, is upper end)
  for (const CensoredValue& v : values) {
    ends.push_back({v.low, false});
    ends.push_back({v.high, true});
  }
  std::sort(ends.begin(), ends.end());
  std::vector<CensoredValue> innermost;
  for (std::size_t k = 0; k + 1 < ends.size(); ++k) {
    if (!ends[k].second && ends[k + 1].second) innermost.push_back({ends[k].first, ends[k + 1].first});
  }
  return innermost;
}

// The self-consistency iteration: a mass per innermost interval such that each equals the mean,
// over the observations, of the share of the observation's probability it holds. Each
// observation covers a run of innermost intervals [first, last], so one pass is linear (prefix
// sums for each observation's probability, a difference array for the shares).
std::vector<double> turnbull_masses(const std::vector<CensoredValue>& values, const std::vector<CensoredValue>& innermost) {
  constexpr int kMaxIterations = 20000;
  constexpr double kTolerance = 1e-9;  // largest change of a mass between passes
  struct Cover {
    std::size_t first, last;
  };
  std::vector<Cover> covers;
  for (const CensoredValue& v : values) {
    const auto first = std::lower_bound(innermost.begin(), innermost.end(), v.low,
                                        [](const CensoredValue& i, double low) { return i.low < low; });
    const auto past = std::upper_bound(innermost.begin(), innermost.end(), v.high,
                                       [](double high, const CensoredValue& i) { return high < i.high; });
    covers.push_back({static_cast<std::size_t>(first - innermost.begin()), static_cast<std::size_t>(past - innermost.begin()) - 1});
  }
  const std::size_t m = innermost.size();
  const auto n = static_cast<double>(values.size());
  std::vector<double> mass(m, 1.0 / static_cast<double>(m)), prefix(m + 1), share(m + 1);
  for (int pass = 0; pass < kMaxIterations; ++pass) {
    for (std::size_t j = 0; j < m; ++j) prefix[j + 1] = prefix[j] + mass[j];
    std::fill(share.begin(), share.end(), 0.0);
    for (const Cover& c : covers) {
      const double probability = prefix[c.last + 1] - prefix[c.first];
      if (probability <= 0) continue;
      share[c.first] += 1 / probability;
      share[c.last + 1] -= 1 / probability;
    }
    double change = 0, running = 0;
    for (std::size_t j = 0; j < m; ++j) {
      running += share[j];
      const double next = mass[j] * running / n;
      change = std::max(change, std::abs(next - mass[j]));
      mass[j] = next;
    }
    if (change < kTolerance) break;
  }
  return mass;
}

}  // namespace

EmpiricalQuantiles EmpiricalQuantiles::of_interval_censored(std::vector<CensoredValue> values) {
  std::erase_if(values, [](const CensoredValue& v) { return !std::isfinite(v.low) || !std::isfinite(v.high) || v.low > v.high; });
  EmpiricalQuantiles out;
  out.observations = values.size();
  if (values.empty()) return out;
  const std::vector<CensoredValue> innermost = innermost_intervals(values);
  std::vector<double> mass = turnbull_masses(values, innermost);
  // Masses the iteration only drives towards 0 hold none; each knot is the least x with F(x) >= p,
  // F rising evenly across an innermost interval.
  double total = 0;
  for (double& m : mass) total += (m = m < 1e-12 ? 0 : m);
  std::size_t j = 0;
  double below = 0;  // mass of the intervals before j
  for (int k = 0; k < kKnots; ++k) {
    const double p = total * static_cast<double>(k) / (kKnots - 1);
    while (j + 1 < mass.size() && (mass[j] == 0 || below + mass[j] < p - 1e-12 * total)) below += mass[j++];
    const double fraction = mass[j] == 0 ? 1 : std::clamp((p - below) / mass[j], 0.0, 1.0);
    out.knots.push_back(innermost[j].low + fraction * (innermost[j].high - innermost[j].low));
  }
  return out;
}

double EmpiricalQuantiles::quantile(double p) const { return knots.empty() ? 0 : sorted_quantile(knots, p); }

nlohmann::json EmpiricalQuantiles::to_json(const char* key) const {
  return {{"observations", observations}, {key, knots}};
}

EmpiricalQuantiles EmpiricalQuantiles::from_json(const nlohmann::json& json, const char* key, double max,
                                                 const std::string& max_text, const std::string& where,
                                                 const std::string& input) {
  if (!json.is_object()) throw Error(input, where + ": must be a JSON object");
  if (!json.contains("observations") || !json.at("observations").is_number_unsigned()) {
    throw Error(input, where + ".observations: missing, or not a whole number from 0");
  }
  if (!json.contains(key) || !json.at(key).is_array()) throw Error(input, where + "." + key + ": missing, or not an array");
  EmpiricalQuantiles out;
  out.observations = json.at("observations").get<std::size_t>();
  const nlohmann::json& knots = json.at(key);
  for (std::size_t k = 0; k < knots.size(); ++k) {
    const std::string field = where + "." + key + "[" + std::to_string(k) + "]";
    if (!knots[k].is_number()) throw Error(input, field + ": " + knots[k].dump() + " is not a number");
    const double value = knots[k].get<double>();
    if (!std::isfinite(value) || value < 0 || value > max) {
      throw Error(input, field + ": " + knots[k].dump() + " must be a finite number from 0 to " + max_text);
    }
    if (k > 0 && value < out.knots.back()) throw Error(input, field + ": quantiles must be non-decreasing");
    out.knots.push_back(value);
  }
  if (out.knots.empty() != (out.observations == 0)) {
    throw Error(input, where + ": " + std::to_string(out.observations) + " observations but " +
                           std::to_string(out.knots.size()) + " quantiles");
  }
  return out;
}

}  // namespace millrace::data
