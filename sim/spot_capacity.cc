#include "sim/spot_capacity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "data/error.h"
#include "data/importers/fields.h"
#include "data/quantity.h"
#include "data/readable_duration.h"
#include "data/registry.h"
#include "data/uniform_draws.h"
#include "sim/duration_draws.h"

namespace millrace::sim {

namespace {

const data::Registry<bool>& capacity_types() {
  static const data::Registry<bool> registry = [] {
    data::Registry<bool> r("capacity_type");
    r.add("on-demand", false);
    r.add("spot", true);
    return r;
  }();
  return registry;
}

// Below this chance that the median item outlives a node, the work is refused.
constexpr double kLeastSurvival = 0.01;

std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

data::Micros micros_of_hours(double hours) {
  return static_cast<data::Micros>(std::llround(hours * static_cast<double>(data::kMicrosPerHour)));
}

}  // namespace

void read_spot_fields(NodePool& pool, std::string_view capacity_type, std::string_view interruption_rate,
                      const std::string& where) {
  pool.spot = !capacity_type.empty() && capacity_types().find(std::string(capacity_type), where);
  if (interruption_rate.empty()) return;
  const double rate = data::importers::parse_real(interruption_rate, where, "interruption_rate");
  if (rate < 0) {
    throw data::Error(where, "interruption_rate " + std::string(interruption_rate) +
                                 " is negative (interruptions per node-hour, e.g. 0.05)");
  }
  if (!pool.spot) {
    throw data::Error(where, "interruption_rate " + std::string(interruption_rate) + " on pool '" + pool.name +
                                 "', which is not spot (capacity_type spot)");
  }
  pool.interruption_rate = rate;
}

std::vector<InterruptionRate> interruption_rates(const std::vector<NodePool>& pools, const FittedRate& fitted) {
  std::vector<InterruptionRate> rates;
  for (const NodePool& pool : pools) {
    if (!pool.spot) {
      rates.push_back({});
      continue;
    }
    if (pool.interruption_rate) {
      rates.push_back({*pool.interruption_rate, "typed"});
      continue;
    }
    const std::optional<double> learned = fitted ? fitted(pool.name) : std::nullopt;
    if (!learned) {
      throw data::Error(pool.declared_at.empty() ? "--node-pools" : pool.declared_at,
                        "spot pool '" + pool.name +
                            "' has no interruption_rate (interruptions per node-hour, e.g. 0.05), and no fitted "
                            "model (--model) gives one");
    }
    rates.push_back({*learned, "fitted"});
  }
  return rates;
}

std::uint64_t interruption_seed(std::uint64_t simulation_seed) {
  constexpr std::uint64_t kInterruptionStream = 0x696e746572727570ULL;  // "interrup"
  return splitmix(simulation_seed ^ kInterruptionStream);
}

std::optional<data::Micros> draw_lifetime(double rate_per_node_hour, std::mt19937_64& rng) {
  if (!(rate_per_node_hour > 0)) return std::nullopt;
  const double hours = -std::log(data::unit_draw(rng)) / rate_per_node_hour;
  constexpr double kThousandYears = 1000 * 366 * 24.0;
  if (!(hours < kThousandYears)) return std::nullopt;
  return micros_of_hours(hours);
}

void check_survivable(const std::vector<NodePool>& pools, const std::vector<InterruptionRate>& rates,
                      const scheduler::PlannedWork& plan, const std::vector<data::Micros>& durations) {
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const double rate = rates[p].per_node_hour;
    if (!(rate > 0)) continue;
    std::vector<data::Micros> fitting;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (data::short_resource(plan.requests(i), pools[p].capacity).empty()) fitting.push_back(durations[i]);
    }
    if (fitting.empty()) continue;
    auto middle = fitting.begin() + static_cast<std::ptrdiff_t>(fitting.size() / 2);
    std::nth_element(fitting.begin(), middle, fitting.end());
    const double median_hours = static_cast<double>(*middle) / static_cast<double>(data::kMicrosPerHour);
    const double survival = std::exp(-rate * median_hours);
    if (survival >= kLeastSurvival) continue;
    const NodePool& pool = pools[p];
    throw data::Error(pool.declared_at.empty() ? "--node-pools" : pool.declared_at,
                      "spot pool '" + pool.name + "': an interruption rate of " + figure(rate) + " per node-hour (" +
                          rates[p].source + ") gives a node " + data::readable_duration(micros_of_hours(1 / rate)) +
                          " on average, and the median item that fits it (" + data::readable_duration(*middle) +
                          ") would outlive a node with probability " + figure(survival) +
                          ": every attempt would be interrupted (at most " +
                          figure(-std::log(kLeastSurvival) / median_hours) + " per node-hour for a 1 % chance)");
  }
}

}  // namespace millrace::sim
