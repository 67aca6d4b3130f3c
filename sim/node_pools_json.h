// The node pools of a simulated cluster (sim/node_pools.h's NodePoolsConfig) as JSON and back,
// exactly: every field of every pool (nodes at the start, min, max, provisioning delay and whether
// it was given, capacity, price, billing, spot, interruption rate or lifetime, where it was
// declared), the placement, the expander and the scale-down delay. A fanned-out plan's node
// search sends the pools each comparison simulates this way (sim/sweep_shards.h), as sized,
// left out of a mix or made on-demand by the search, so a worker simulates exactly those.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/node_pools.h"

namespace millrace::sim {

nlohmann::json to_json(const NodePoolsConfig& config);

// Reads a to_json text back; throws data::Error naming `where` and the field
// ("selection.node_pools.pools[1].interruption_rate: ...") for a missing, unknown or malformed
// field, and what check_node_pools refuses of pools that are given (none: a cluster of slots).
NodePoolsConfig node_pools_from_json(const nlohmann::json& value, const std::string& where);

}  // namespace millrace::sim
