// The resource options `simulate`, `compare` and `plan` share: node pools (`--node-pools FILE`,
// sim/node_pools.h, with `--placement` and `--scale-down-delay`, or `--machine cpu=4,memory=16Gi`:
// one pool of a fixed number of such machines) instead of `--nodes` x `--slots-per-node`, and
// per-type caps (`--type-limit TYPE=K`, repeatable) of job-per-item.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/simulation.h"

namespace millrace::cli {

struct ResourceOptions {
  std::string node_pools;               // file; empty: slots
  std::string machine;                  // NAME=QUANTITY,...: one fixed pool of such machines
  std::string placement = "least-allocated";
  std::string expander = "first";
  std::string scale_down_delay = "10m";
  std::vector<std::string> type_limits;  // TYPE=K
};

void add_resource_options(CLI::App& command, ResourceOptions& options);

// TYPE=K pairs as a map; throws data::Error naming --type-limit and the text when one is not
// TYPE=K with K a whole number from 1, or a type is given twice.
std::map<std::string, int> parse_type_limits(const std::vector<std::string>& texts);

// Sets the config's pools (--machine: a pool named "machine" of `machines` nodes, count = min =
// max), placement and type limits. Throws data::Error naming the option (and the pools file's
// line) when one is malformed, when both --node-pools and --machine are given, and when pools
// are given with a policy other than job-per-item.
void apply_resource_options(const ResourceOptions& options, sim::SimulationConfig& config, int machines = 1);

// {"node_pools" or "machine", "placement", "expander", "scale_down_delay", "type_limits"} for the
// stored parameters.
nlohmann::json resource_parameters(const ResourceOptions& options);

}  // namespace millrace::cli
