// What a simulated run costs: each machine's billed lifetime priced by its pool. A node of a node
// pool lives from its provisioning (its order by the autoscaler, or the run's start for the nodes
// up from it) to its removal, or to the end of the run (the last attempt's end) when it is still
// up then, and is billed that lifetime rounded by its pool's rule (data/billing.h) at its pool's
// price per node-hour. A fixed pool of workers (no node pools: the cluster's slots, as many as
// the policy runs at once) lives from the run's start to its end, each worker billed the run's
// makespan by the worker billing rule at the price per worker-hour. Amounts are exact
// (data/money.h): a pool's is summed over its machines and rounded once, the total is the sum of
// the pools'. A run has a cost only when every pool (or the workers) has a price.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/billing.h"
#include "data/money.h"
#include "data/run_summary.h"
#include "sim/sim_cluster.h"

namespace millrace::sim {

// The prices of a cluster besides its node pools' own: a fixed pool's workers, and the currency
// every figure is printed in.
struct Pricing {
  std::optional<data::Money> worker_price;  // per worker-hour; unset: workers are not priced
  data::BillingRule worker_billing;
  std::string currency = "USD";
};

struct PoolCost {
  std::string name;              // a node pool's, or "workers"
  data::Money amount;
  std::int64_t machines = 0;     // nodes (or workers) billed for a lifetime above 0
  double billed_hours = 0;       // their billed lifetimes summed
};

struct RunCost {
  data::Money total;
  std::string currency;
  std::vector<PoolCost> pools;
};

// A configuration's cost over its replicas: the mean and nearest-rank quantiles, and each pool's
// mean (in pool order; "workers" for a fixed pool).
struct PoolMean {
  std::string name;
  data::Money mean;
  bool operator==(const PoolMean&) const = default;
};
struct CostBand {
  data::Money mean, p10, p50, p90;
  std::string currency;
  std::vector<PoolMean> pools;
  bool operator==(const CostBand&) const = default;
};

// "20.00 USD (p10-p90 18.40-22.10 USD)"; the band left out when p10 = p90.
std::string band_text(const CostBand& band, data::Money central);

// "20.00 USD / 22.10 USD": the mean and the p90, a table's cost cell.
std::string mean_and_p90_text(const CostBand& band);

// {"mean", "p10", "p50", "p90": exact decimal strings, "currency", "pools": {NAME: {"mean"}}}.
nlohmann::json to_json(const CostBand& band);

// A pool's cost: each (lifetime, machines) billed by `billing` at `per_hour`.
PoolCost pool_cost(const std::string& name, data::Money per_hour, const data::BillingRule& billing,
                   const std::vector<std::pair<data::Micros, std::int64_t>>& lifetimes);

// Whether runs on the cluster have a cost: every pool priced or, without pools, the workers.
bool is_priced(const SimClusterConfig& cluster, const Pricing& pricing);

// The run's cost on `cluster`'s node pools (`nodes`, their state once the run is over) or, without
// pools, on `workers` workers alive over [0, end]; nullopt when the pools (or the workers) have
// no price.
std::optional<RunCost> run_cost(const SimClusterConfig& cluster, const Pricing& pricing, const PoolNodes* nodes,
                                int workers, data::Micros end);

// What a recorded run cost: its workers (the summary's, over its makespan: from the first
// attempt's start to the last one's end) at the workers' price, or its recorded nodes
// (data/records.h's NodeArrival), each from its creation (else its readiness, else the first
// start) to its recorded departure (else the last end: a node not seen to leave is billed while
// the run needed it), at the price of its pool in `pools` (a single pool prices every node,
// whatever pool it was recorded in). Throws data::Error naming a node whose pool has no price
// there, and when pools are given for a run without recorded nodes.
RunCost recorded_run_cost(const data::RunSummary& summary, const std::vector<data::NodeArrival>& nodes,
                          const Pricing& pricing, const std::vector<NodePool>& pools);

// {"total": "15.00", "currency": "USD", "pools": {NAME: {"total", "machines", "billed_hours"}}}:
// amounts as exact decimal strings (data/money.h's exact_money: a JSON number is a binary double
// to most readers, which would round the cents away).
nlohmann::json to_json(const RunCost& cost);

// "20.00 USD (cpu 12.00 USD, gpu 8.00 USD)": one run's cost, its pools' beside when several.
std::string cost_text(const RunCost& cost);

}  // namespace millrace::sim
