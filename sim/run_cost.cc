#include "sim/run_cost.h"

#include <algorithm>

#include "data/error.h"
#include "data/readable_duration.h"

namespace millrace::sim {

namespace {

// The cost with its total: the sum of its pools'.
RunCost totalled(RunCost cost) {
  for (const PoolCost& pool : cost.pools) cost.total = data::checked_sum(cost.total, pool.amount, "the run's cost");
  return cost;
}

}  // namespace

PoolCost pool_cost(const std::string& name, data::Money per_hour, const data::BillingRule& billing,
                   const std::vector<std::pair<data::Micros, std::int64_t>>& lifetimes) {
  PoolCost cost{name, {}, 0, 0};
  data::HourlyTally tally(per_hour);
  for (const auto& [lifetime, machines] : lifetimes) {
    const data::Micros billed = data::billed_time(billing, lifetime);
    tally.add(billed, machines);
    if (billed > 0) cost.machines += machines;
    cost.billed_hours += static_cast<double>(billed) * static_cast<double>(machines) / data::kMicrosPerHour;
  }
  cost.amount = tally.total("the cost of pool '" + name + "'");
  return cost;
}

bool is_priced(const SimClusterConfig& cluster, const Pricing& pricing) {
  const std::vector<NodePool>& pools = cluster.pools.pools;
  if (pools.empty()) return pricing.worker_price.has_value();
  return std::all_of(pools.begin(), pools.end(), [](const NodePool& pool) { return pool.price.has_value(); });
}

std::optional<RunCost> run_cost(const SimClusterConfig& cluster, const Pricing& pricing, const PoolNodes* nodes,
                                int workers, data::Micros end) {
  RunCost cost{{}, pricing.currency, {}};
  if (nodes == nullptr) {
    if (!pricing.worker_price) return std::nullopt;
    cost.pools.push_back(pool_cost("workers", *pricing.worker_price, pricing.worker_billing, {{end, workers}}));
  } else {
    for (std::size_t p = 0; p < nodes->pool_count(); ++p) {
      const NodePool& pool = cluster.pools.pools.at(p);
      if (!pool.price) return std::nullopt;
      cost.pools.push_back(pool_cost(pool.name, *pool.price, pool.billing, nodes->lifetimes(p, end)));
    }
  }
  return totalled(std::move(cost));
}

RunCost recorded_run_cost(const data::RunSummary& summary, const std::vector<data::NodeArrival>& nodes,
                          const Pricing& pricing, const std::vector<NodePool>& pools) {
  const data::Micros first = summary.first_start;
  const data::Micros last = first + summary.makespan;
  RunCost cost{{}, pricing.currency, {}};
  if (pools.empty()) {
    if (!pricing.worker_price) throw data::Error("--worker-price", "needed to price a run without node pools");
    cost.pools.push_back(pool_cost("workers", *pricing.worker_price, pricing.worker_billing,
                                   {{summary.makespan, static_cast<std::int64_t>(summary.workers)}}));
  } else {
    if (nodes.empty()) {
      throw data::Error("the recorded run", "recorded no node arrivals to price: give --worker-price for its workers");
    }
    std::string names;
    for (const NodePool& pool : pools) names += (names.empty() ? "" : ", ") + pool.name;
    std::vector<std::vector<std::pair<data::Micros, std::int64_t>>> lifetimes(pools.size());
    for (const data::NodeArrival& node : nodes) {
      std::size_t p = 0;
      while (pools.size() > 1 && p < pools.size() && pools[p].name != node.pool) ++p;
      if (p == pools.size()) {
        throw data::Error("node " + node.node, "of pool '" + node.pool + "' has no price (priced pools: " + names + ")");
      }
      const data::Micros born = node.created.value_or(node.ready.value_or(first));
      const data::Micros gone = node.departed.value_or(last);
      lifetimes[p].emplace_back(std::max<data::Micros>(0, gone - born), 1);
    }
    for (std::size_t p = 0; p < pools.size(); ++p) {
      if (!pools[p].price) throw data::Error("pool '" + pools[p].name + "'", "has no price");
      cost.pools.push_back(pool_cost(pools[p].name, *pools[p].price, pools[p].billing, lifetimes[p]));
    }
  }
  return totalled(std::move(cost));
}

nlohmann::json to_json(const RunCost& cost) {
  nlohmann::json pools = nlohmann::json::object();
  for (const PoolCost& pool : cost.pools) {
    pools[pool.name] = {{"total", data::exact_money(pool.amount)},
                        {"machines", pool.machines},
                        {"billed_hours", pool.billed_hours}};
  }
  return {{"total", data::exact_money(cost.total)}, {"currency", cost.currency}, {"pools", pools}};
}

std::string band_text(const CostBand& band, data::Money central) {
  const std::string text = data::money_text(central, band.currency);
  if (band.p10 == band.p90) return text;
  return text + " (p10-p90 " + data::money_band(band.p10, band.p90, band.currency) + ")";
}

std::string mean_and_p90_text(const CostBand& band) {
  return data::money_text(band.mean, band.currency) + " / " + data::money_text(band.p90, band.currency);
}

nlohmann::json to_json(const CostBand& band) {
  nlohmann::json pools = nlohmann::json::object();
  for (const PoolMean& pool : band.pools) pools[pool.name] = {{"mean", data::exact_money(pool.mean)}};
  return {{"mean", data::exact_money(band.mean)},
          {"p10", data::exact_money(band.p10)},
          {"p50", data::exact_money(band.p50)},
          {"p90", data::exact_money(band.p90)},
          {"currency", band.currency},
          {"pools", pools}};
}

std::string cost_text(const RunCost& cost) {
  const std::string text = data::money_text(cost.total, cost.currency);
  if (cost.pools.size() < 2) return text;
  std::string parts;
  for (const PoolCost& pool : cost.pools) {
    parts += (parts.empty() ? "" : ", ") + pool.name + " " + data::money_text(pool.amount, cost.currency);
  }
  return text + " (" + parts + ")";
}

}  // namespace millrace::sim
