#include "data/run_spread.h"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/students_t.hpp>
#include <nlohmann/json.hpp>

#include "data/error.h"

namespace millrace::data {

namespace {

double mean_log(const std::vector<double>& factors) {
  double sum = 0;
  for (double f : factors) sum += std::log(f);
  return sum / static_cast<double>(factors.size());
}

}  // namespace

double RunSpread::log_sd() const {
  if (!identified()) return 0;
  const double mean = mean_log(factors);
  double squares = 0;
  for (double f : factors) squares += (std::log(f) - mean) * (std::log(f) - mean);
  const auto k = static_cast<double>(factors.size());
  return std::sqrt(squares / (k - 1)) * std::sqrt(1 + 1 / k);
}

double RunSpread::median() const { return identified() ? std::exp(mean_log(factors)) : 1; }

double RunSpread::draw(double u) const {
  if (!identified()) return 1;
  const boost::math::students_t t(static_cast<double>(factors.size() - 1));
  return std::exp(mean_log(factors) + log_sd() * boost::math::quantile(t, std::clamp(u, 0.005, 0.995)));
}

nlohmann::json RunSpread::to_json() const { return factors; }

RunSpread RunSpread::from_json(const nlohmann::json& json, const std::string& input) {
  if (!json.is_array()) throw Error(input, "noise.run_factors: must be an array of numbers");
  RunSpread spread;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const nlohmann::json& f = json[i];
    if (!f.is_number() || !std::isfinite(f.get<double>()) || f.get<double>() <= 0) {
      throw Error(input, "noise.run_factors[" + std::to_string(i) + "]: " + f.dump() + " is not a positive finite number");
    }
    spread.factors.push_back(f.get<double>());
  }
  return spread;
}

}  // namespace millrace::data
