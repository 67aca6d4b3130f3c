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

EmpiricalQuantiles EmpiricalQuantiles::of_left_censored(std::vector<double> exact, std::vector<double> bounds) {
  EmpiricalQuantiles out;
  out.observations = exact.size() + bounds.size();
  if (exact.empty()) return out;
  std::sort(exact.begin(), exact.end());
  std::sort(bounds.begin(), bounds.end());
  // Distinct exact values, highest first, with F just below each: F(v-) = F(v) x (1 - d/n).
  std::vector<std::pair<double, double>> steps;  // (v, F(v)), v descending
  double below = 1;                              // F at the current value
  std::size_t e = exact.size();
  while (e > 0) {
    const double v = exact[e - 1];
    std::size_t d = 0;
    while (e > 0 && exact[e - 1] == v) {
      --e;
      ++d;
    }
    const auto n = static_cast<double>(e + d) +
                   static_cast<double>(std::upper_bound(bounds.begin(), bounds.end(), v) - bounds.begin());
    steps.push_back({v, below});
    below *= 1 - static_cast<double>(d) / n;
  }
  // Ascending: F(v) at each exact value; the least x with F(x) >= p.
  std::reverse(steps.begin(), steps.end());
  for (int k = 0; k < kKnots; ++k) {
    const double p = static_cast<double>(k) / (kKnots - 1);
    auto at = std::find_if(steps.begin(), steps.end(), [&](const auto& step) { return step.second >= p - 1e-12; });
    out.knots.push_back(at == steps.end() ? steps.back().first : at->first);
  }
  return out;
}

double EmpiricalQuantiles::quantile(double p) const { return knots.empty() ? 0 : sorted_quantile(knots, p); }

nlohmann::json EmpiricalQuantiles::to_json(const char* key) const {
  return {{"observations", observations}, {key, knots}};
}

EmpiricalQuantiles EmpiricalQuantiles::from_json(const nlohmann::json& json, const char* key, bool non_negative,
                                                 const std::string& where, const std::string& input) {
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
    if (!std::isfinite(value) || (non_negative && value < 0)) {
      throw Error(input, field + ": " + knots[k].dump() + (non_negative ? " must be finite and >= 0" : " must be finite"));
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
