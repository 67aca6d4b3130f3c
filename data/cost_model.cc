#include "data/cost_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "data/checked_numbers.h"
#include "data/error.h"
#include "data/model_file.h"

namespace millrace::data {

namespace {

// The costliest range a model may predict over its span: 10^18 us (about 31,700 years) keeps
// every such prediction, and sums of a few of them, inside 64-bit microseconds (9.2e18).
constexpr double kMaxModelMicros = 1e18;

std::string shortest(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

const nlohmann::json& require(const nlohmann::json& object, const char* key, nlohmann::json::value_t type,
                              const std::string& where, const std::string& input) {
  if (!object.is_object() || !object.contains(key)) throw Error(input, where + ": missing key '" + key + "'");
  const nlohmann::json& value = object.at(key);
  const bool number_ok = type == nlohmann::json::value_t::number_float && value.is_number();
  const bool integer_ok = type == nlohmann::json::value_t::number_integer && value.is_number_integer();
  if (!number_ok && !integer_ok && value.type() != type) {
    throw Error(input, where + ": key '" + key + "' has type " + value.type_name());
  }
  return value;
}

// A noise factor multiplies a prediction: the largest factor times the costliest range over the
// model's span must stay within the simulator's clock (kMaxMicros), or a draw would only saturate.
void check_noise_within_clock(const CostModel& model, const std::string& input) {
  const double costliest = std::max(model.costliest(), 1.0);
  const double largest = static_cast<double>(kMaxMicros) / costliest;
  const auto beyond = [&](const std::string& field, double factor) {
    return Error(input, field + ": " + shortest(factor) + " times the costliest range over the model's span (" +
                            shortest(costliest / kMicrosPerSecond) + " s) passes " + kMaxMicrosText);
  };
  const std::vector<double>& runs = model.noise().runs().factors;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i] > largest) throw beyond("noise.run_factors[" + std::to_string(i) + "]", runs[i]);
  }
  const double run = runs.empty() ? 1 : std::max(1.0, *std::max_element(runs.begin(), runs.end()));
  const std::vector<NoiseSegment>& segments = model.noise().segments();
  for (std::size_t i = 0; i < segments.size(); ++i) {
    for (std::size_t k = 0; k < segments[i].quantiles.size(); ++k) {
      if (segments[i].quantiles[k] * run > largest) {
        throw beyond("noise.segments[" + std::to_string(i) + "].quantiles[" + std::to_string(k) + "]" +
                         (run > 1 ? " (with the largest run factor " + shortest(run) + ")" : ""),
                     segments[i].quantiles[k] * run);
      }
    }
  }
}

}  // namespace

CostModel::CostModel(std::vector<CostBin> bins, std::string units, std::string source, const std::string& input)
    : bins_(std::move(bins)), units_(std::move(units)), source_(std::move(source)) {
  if (bins_.empty()) throw Error(input, "a cost model needs at least one bin");
  edges_.push_back(bins_.front().range.first);
  prefix_.push_back(0);
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    const CostBin& bin = bins_[i];
    const std::string where = "bin " + std::to_string(i);
    if (bin.range.count <= 0) throw Error(input, where + ": empty bin (count " + std::to_string(bin.range.count) + ")");
    if (bin.range.first != edges_.back()) {
      throw Error(input, where + ": bins must be sorted and contiguous (starts at " + std::to_string(bin.range.first) +
                             ", previous bin ends at " + std::to_string(edges_.back()) + ")");
    }
    if (!std::isfinite(bin.startup_micros) || bin.startup_micros < 0) {
      throw Error(input, where + ": negative or non-finite start-up cost " + std::to_string(bin.startup_micros));
    }
    if (!std::isfinite(bin.micros_per_unit) || bin.micros_per_unit < 0) {
      throw Error(input, where + ": negative or non-finite work density " + std::to_string(bin.micros_per_unit));
    }
    std::int64_t end = 0;
    if (__builtin_add_overflow(bin.range.first, bin.range.count, &end)) {
      throw Error(input, where + ": first " + std::to_string(bin.range.first) + " + count " +
                             std::to_string(bin.range.count) + " overflows 64-bit units");
    }
    if (bin.startup_micros > kMaxModelMicros) {
      throw Error(input, where + ": startup_micros " + shortest(bin.startup_micros) + " is implausible (a range's cost must stay below " +
                             shortest(kMaxModelMicros) + " us, about 31,700 years)");
    }
    const double total = prefix_.back() + bin.micros_per_unit * static_cast<double>(bin.range.count);
    if (total + bin.startup_micros > kMaxModelMicros) {
      throw Error(input, where + ": micros_per_unit " + shortest(bin.micros_per_unit) +
                             " is implausible: the work over the model's span reaches " + shortest(total) +
                             " us (a range's cost must stay below " + shortest(kMaxModelMicros) + " us, about 31,700 years)");
    }
    edges_.push_back(end);
    prefix_.push_back(total);
  }
  if (costliest() > kMaxModelMicros) {
    throw Error(input, "start-up plus the work over the model's span reaches " + shortest(costliest()) +
                           " us (a range's cost must stay below " + shortest(kMaxModelMicros) + " us, about 31,700 years)");
  }
  const std::int64_t width = bins_.front().range.count;
  const bool uniform = std::all_of(bins_.begin(), bins_.end() - 1, [&](const CostBin& b) { return b.range.count == width; }) &&
                       bins_.back().range.count <= width;
  uniform_width_ = uniform ? width : 0;
}

CostModel CostModel::from_profile(const CostProfile& profile, Micros startup) {
  std::vector<CostBin> bins;
  bins.reserve(profile.bins.size());
  for (const ProfileBin& bin : profile.bins) {
    bins.push_back({bin.range, static_cast<double>(startup), bin.micros_per_unit});
  }
  return CostModel(std::move(bins), profile.units, profile.source.empty() ? profile.name : profile.source,
                   "cost profile '" + profile.name + "'");
}

double CostModel::costliest() const {
  const auto largest_startup = std::max_element(bins_.begin(), bins_.end(), [](const CostBin& a, const CostBin& b) {
    return a.startup_micros < b.startup_micros;
  });
  return prefix_.back() + largest_startup->startup_micros;
}

Range CostModel::span() const { return {edges_.front(), edges_.back() - edges_.front()}; }

std::size_t CostModel::bin_index(std::int64_t x) const {
  if (uniform_width_ > 0) {
    const std::int64_t i = x < edges_.front() ? 0 : (x - edges_.front()) / uniform_width_;
    return static_cast<std::size_t>(std::min<std::int64_t>(i, static_cast<std::int64_t>(bins_.size()) - 1));
  }
  const auto it = std::upper_bound(edges_.begin() + 1, edges_.end() - 1, x);
  return static_cast<std::size_t>(it - edges_.begin() - 1);
}

double CostModel::cumulative(std::int64_t x) const {
  const std::size_t i = bin_index(x);
  return prefix_[i] + static_cast<double>(x - edges_[i]) * bins_[i].micros_per_unit;
}

double CostModel::startup(std::int64_t first) const { return bins_[bin_index(first)].startup_micros; }

double CostModel::work(std::int64_t from, std::int64_t to) const { return cumulative(to) - cumulative(from); }

double CostModel::cost(const Range& range) const { return startup(range.first) + work(range.first, range.end()); }

std::int64_t CostModel::furthest_end(std::int64_t from, double budget, std::int64_t limit) const {
  if (limit <= from || budget < 0) return from;
  const double target = cumulative(from) + budget;
  if (cumulative(limit) <= target) return limit;
  // Largest bin edge index whose cumulative work stays within the target; the answer lies in
  // that bin (or in the extrapolated regions before the first / after the last edge). Ranges
  // are usually short against the span, so gallop forward from the bin of `from`.
  const std::size_t start = bin_index(from);
  std::size_t step = 1;
  while (start + step < prefix_.size() && prefix_[start + step] <= target) step *= 2;
  const auto it = std::upper_bound(prefix_.begin() + static_cast<std::ptrdiff_t>(start + step / 2),
                                   prefix_.begin() + static_cast<std::ptrdiff_t>(std::min(start + step, prefix_.size())),
                                   target);
  std::size_t i = it == prefix_.begin() ? 0 : static_cast<std::size_t>(it - prefix_.begin() - 1);
  i = std::min(i, bins_.size() - 1);
  const double density = bins_[i].micros_per_unit;
  const double exact = (target - prefix_[i]) / density;
  const double steps = std::floor(exact + 1e-12 * std::max(1.0, std::abs(exact)));
  const std::int64_t end = edges_[i] + static_cast<std::int64_t>(steps);
  return std::clamp(end, from, limit);
}

CostProfile CostModel::profile(const std::string& name) const {
  CostProfile out{name, units_, source_, {}};
  for (const CostBin& bin : bins_) out.bins.push_back({bin.range, bin.micros_per_unit});
  return out;
}

nlohmann::json CostModel::to_json() const {
  nlohmann::json bins = nlohmann::json::array();
  for (const CostBin& bin : bins_) {
    bins.push_back({{"first", bin.range.first},
                    {"count", bin.range.count},
                    {"startup_micros", bin.startup_micros},
                    {"micros_per_unit", bin.micros_per_unit}});
  }
  nlohmann::json json = {{"format", kCostModelFormat}, {"version", kModelFileVersion}, {"units", units_}, {"source", source_}, {"bins", bins}};
  if (!noise_.empty()) json["noise"] = noise_.to_json();
  return json;
}

CostModel CostModel::from_json(const nlohmann::json& json, const std::string& input) {
  using Type = nlohmann::json::value_t;
  if (!json.is_object()) throw Error(input, "a cost model must be a JSON object");
  const std::string format = require(json, "format", Type::string, "model", input).get<std::string>();
  if (format == kClusterModelFormat) {
    throw Error(input, "holds a cluster model only (fitted from runs without ranges): it has no cost model to "
                       "predict range durations; fit one from runs with ranges (millrace fit --runs)");
  }
  if (format != kCostModelFormat) {
    throw Error(input, "not a millrace cost model (format is not '" + std::string(kCostModelFormat) + "')");
  }
  const int version = require(json, "version", Type::number_integer, "model", input).get<int>();
  if (version != kModelFileVersion) throw Error(input, "unsupported cost model version " + std::to_string(version));
  std::vector<CostBin> bins;
  const nlohmann::json& items = require(json, "bins", Type::array, "model", input);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string where = "bin " + std::to_string(i);
    const nlohmann::json& item = items[i];
    if (!item.is_object()) throw Error(input, where + ": must be a JSON object");
    bins.push_back({{require(item, "first", Type::number_integer, where, input).get<std::int64_t>(),
                     require(item, "count", Type::number_integer, where, input).get<std::int64_t>()},
                    require(item, "startup_micros", Type::number_float, where, input).get<double>(),
                    require(item, "micros_per_unit", Type::number_float, where, input).get<double>()});
  }
  CostModel model(std::move(bins), require(json, "units", Type::string, "model", input).get<std::string>(),
                  require(json, "source", Type::string, "model", input).get<std::string>(), input);
  if (json.contains("noise")) {
    model.set_noise(DurationNoise::from_json(json.at("noise"), input));
    check_noise_within_clock(model, input);
  }
  return model;
}

void CostModel::save(const std::string& path) const { save(path, nullptr); }

void CostModel::save(const std::string& path, const nlohmann::json& fit) const {
  write_model_file(path, this, nullptr, fit);
}

CostModel CostModel::load(const std::string& path) { return from_json(read_model_json(path), path); }

}  // namespace millrace::data
