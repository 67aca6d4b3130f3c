// The resource options `simulate`, `compare` and `plan` share: node pools (`--node-pools FILE`,
// sim/node_pools.h, with `--placement` and `--scale-down-delay`, or `--machine cpu=4,memory=16Gi`:
// one pool of a fixed number of such machines) instead of `--nodes` x `--slots-per-node`, and
// per-type caps (`--type-limit TYPE=K`, repeatable) of job-per-item; and prices (sim/run_cost.h):
// `--machine ...,price=0.19,billing=per-second:60s` (the node pools file has its own columns),
// `--worker-price 0.40` and `--worker-billing RULE` for a fixed pool of workers, `--currency`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "data/billing.h"
#include "data/money.h"
#include "data/quantity.h"
#include "sim/simulation.h"

namespace millrace::cli {

struct ResourceOptions {
  std::string node_pools;               // file; empty: slots
  std::string machine;                  // NAME=QUANTITY,...: one fixed pool of such machines
  std::string placement = "least-allocated";
  std::string expander = "first";
  std::string scale_down_delay = "10m";
  std::vector<std::string> type_limits;  // TYPE=K
  std::string worker_price;             // per worker-hour; empty: not priced
  std::string worker_billing;           // data/billing.h; empty: per second
  std::string currency = "USD";
};

// --machine's text: the machine's capacity, and its price and billing rule when it names them.
struct MachineSpec {
  data::Quantities capacity;
  std::optional<data::Money> price;
  data::BillingRule billing;
};

// Throws data::Error naming --machine and the text when a part is malformed.
MachineSpec parse_machine(const std::string& text);

void add_resource_options(CLI::App& command, ResourceOptions& options);
// Only the price options (--worker-price, --worker-billing, --currency): `show` prices a recorded run.
void add_price_options(CLI::App& command, ResourceOptions& options);

// The workers' price and billing and the currency; throws data::Error naming the option when one
// is malformed.
sim::Pricing pricing_of(const ResourceOptions& options);

// The pools of --node-pools, or --machine's one pool of `machines` nodes (count = min = max), with
// their prices; empty when neither is given. Throws data::Error naming the option (and the file's
// line) when one is malformed and when both are given.
std::vector<sim::NodePool> pools_of(const ResourceOptions& options, int machines);

// TYPE=K pairs as a map; throws data::Error naming --type-limit and the text when one is not
// TYPE=K with K a whole number from 1, or a type is given twice.
std::map<std::string, int> parse_type_limits(const std::vector<std::string>& texts);

// Sets the config's pools (--machine: a pool named "machine" of `machines` nodes, count = min =
// max), placement, type limits and pricing (refusing --worker-price with node pools, which take
// their prices per pool, a currency that is not 1 to 8 letters). Throws data::Error naming the option (and the pools file's
// line) when one is malformed, when both --node-pools and --machine are given, and when pools
// are given with a policy other than job-per-item.
void apply_resource_options(const ResourceOptions& options, sim::SimulationConfig& config, int machines = 1);

// {"node_pools" or "machine", "placement", "expander", "scale_down_delay", "type_limits"} for the
// stored parameters.
nlohmann::json resource_parameters(const ResourceOptions& options);

}  // namespace millrace::cli
