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

// Below this chance that the median item outlives a node, the work is refused; below the second,
// it is warned of.
constexpr double kLeastSurvival = 0.01;
constexpr double kWarnedSurvival = 0.5;

std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

data::Micros micros_of_hours(double hours) {
  return static_cast<data::Micros>(std::llround(hours * static_cast<double>(data::kMicrosPerHour)));
}

}  // namespace

void read_spot_fields(NodePool& pool, const SpotFields& fields, const std::string& where) {
  pool.spot = !fields.capacity_type.empty() && capacity_types().find(fields.capacity_type, where);
  if (!fields.interruption_rate.empty() && !fields.lifetime.empty()) {
    throw data::Error(where, "spot pool '" + pool.name + "' gives both interruption_rate " + fields.interruption_rate +
                                 " and lifetime " + fields.lifetime + ": give one");
  }
  const std::string& given = fields.lifetime.empty() ? fields.interruption_rate : fields.lifetime;
  if (given.empty()) return;
  if (!fields.lifetime.empty()) {
    pool.lifetime = parse_node_lifetime(fields.lifetime, where);
  } else {
    const double rate = data::importers::parse_real(fields.interruption_rate, where, "interruption_rate");
    if (rate < 0) {
      throw data::Error(where, "interruption_rate " + fields.interruption_rate +
                                   " is negative (interruptions per node-hour, e.g. 0.05)");
    }
    pool.interruption_rate = rate;
  }
  if (!pool.spot) {
    throw data::Error(where, std::string(fields.lifetime.empty() ? "interruption_rate " : "lifetime ") + given +
                                 " on pool '" + pool.name + "', which is not spot (capacity_type spot)");
  }
}

std::vector<InterruptionRate> interruption_rates(const std::vector<NodePool>& pools, const data::ClusterModel* fitted) {
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
    if (pool.lifetime) {
      rates.push_back({1 / mean_hours(*pool.lifetime), "typed", pool.lifetime});
      continue;
    }
    const std::optional<double> learned = fitted ? fitted->interruptions.rate_of(pool.name) : std::nullopt;
    if (!learned) {
      throw data::Error(pool.declared_at.empty() ? "--node-pools" : pool.declared_at,
                        "spot pool '" + pool.name +
                            "' has no interruption_rate (interruptions per node-hour, e.g. 0.05) nor lifetime "
                            "(e.g. weibull:shape=0.8,scale=12h), and no fitted model (--model) gives one");
    }
    rates.push_back({*learned, "fitted"});
  }
  return rates;
}

std::uint64_t interruption_seed(std::uint64_t simulation_seed) {
  constexpr std::uint64_t kInterruptionStream = 0x696e746572727570ULL;  // "interrup"
  return splitmix(simulation_seed ^ kInterruptionStream);
}

std::optional<data::Micros> draw_lifetime(const InterruptionRate& rate, std::mt19937_64& rng) {
  if (rate.lifetime) return draw_node_lifetime(*rate.lifetime, rng);
  if (!(rate.per_node_hour > 0)) return std::nullopt;
  const double hours = -std::log(data::unit_draw(rng)) / rate.per_node_hour;
  constexpr double kThousandYears = 1000 * 366 * 24.0;
  if (!(hours < kThousandYears)) return std::nullopt;
  return micros_of_hours(hours);
}

double attempt_survival(const InterruptionRate& rate, data::Micros duration) {
  if (rate.lifetime) return attempt_survival(*rate.lifetime, duration);
  return std::exp(-rate.per_node_hour * static_cast<double>(duration) / static_cast<double>(data::kMicrosPerHour));
}

std::vector<SurvivalRisk> check_survivable(const std::vector<NodePool>& pools, const std::vector<InterruptionRate>& rates,
                                       const scheduler::PlannedWork& plan, const std::vector<data::Micros>& durations) {
  std::vector<SurvivalRisk> risks;
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const InterruptionRate& rate = rates[p];
    if (!(rate.per_node_hour > 0)) continue;
    std::vector<data::Micros> fitting;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (data::short_resource(plan.requests(i), pools[p].capacity).empty()) fitting.push_back(durations[i]);
    }
    if (fitting.empty()) continue;
    auto middle = fitting.begin() + static_cast<std::ptrdiff_t>(fitting.size() / 2);
    std::nth_element(fitting.begin(), middle, fitting.end());
    const double survival = attempt_survival(rate, *middle);
    if (survival >= kWarnedSurvival) continue;
    const NodePool& pool = pools[p];
    const std::string where = pool.declared_at.empty() ? "--node-pools" : pool.declared_at;
    const std::string given = rate.lifetime ? "a lifetime of " + rate.lifetime->text
                                            : "an interruption rate of " + figure(rate.per_node_hour) + " per node-hour";
    if (survival < kLeastSurvival) {
      const double median_hours = static_cast<double>(*middle) / static_cast<double>(data::kMicrosPerHour);
      throw data::Error(where, "spot pool '" + pool.name + "': " + given + " (" + rate.source + ") gives a node " +
                                   data::readable_duration(micros_of_hours(1 / rate.per_node_hour)) +
                                   " on average, and the median item that fits it (" + data::readable_duration(*middle) +
                                   ") would outlive a node with probability " + figure(survival) +
                                   ": every attempt would be interrupted" +
                                   (rate.lifetime ? std::string()
                                                  : " (at most " + figure(-std::log(kLeastSurvival) / median_hours) +
                                                        " per node-hour for a 1 % chance)"));
    }
    risks.push_back({p, survival,
                     where + ": spot pool '" + pool.name + "': each attempt of the median item that fits it (" +
                         data::readable_duration(*middle) + ") is interrupted with probability " +
                         figure(1 - survival) + " (" + given + ", " + rate.source + "); expect about " +
                         figure((1 - survival) / survival) + " retries per item"});
  }
  return risks;
}

void keep_riskiest(std::vector<SurvivalRisk>& kept, const std::vector<SurvivalRisk>& more) {
  for (const SurvivalRisk& risk : more) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](const SurvivalRisk& k) { return k.pool == risk.pool; });
    if (same == kept.end()) {
      kept.push_back(risk);
    } else if (risk.survival < same->survival) {
      *same = risk;
    }
  }
  std::sort(kept.begin(), kept.end(), [](const SurvivalRisk& a, const SurvivalRisk& b) { return a.pool < b.pool; });
}

std::string survival_warnings(const std::vector<SurvivalRisk>& risks) {
  std::string text;
  for (const SurvivalRisk& risk : risks) text += "warning: " + risk.warning + "\n";
  return text;
}

}  // namespace millrace::sim
