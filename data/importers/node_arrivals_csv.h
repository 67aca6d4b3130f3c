// The node arrivals of a recorded run as CSV (`millrace import --nodes FILE` reads them beside
// the run's own file, `export --nodes FILE` writes them back): one row per node that joined the
// run's cluster while it ran (and each spot node there before it), with the header
//   node, pool, created_s, ready_s, departed_s, capacity_type, present_at_start
// node: its name (required, once per file); pool: its node pool ("" when not known); created_s
// and ready_s: when the cluster created it and when it became ready to take pods, in seconds on
// the run's own clock (the clock of its attempts' start_s), either empty when not recorded, and
// created_s <= ready_s when both are given; departed_s: when it left the cluster (empty: it did
// not, or was not seen to), not before it was created or ready; capacity_type: spot, on-demand
// or empty (not known); present_at_start: 1 for a spot node there before the run (watched for its
// departure, not an arrival), 0 or empty otherwise. Every column but node may be left out of the
// header (files written before departures were recorded read as they did).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::data::importers {

// Throws Error naming file:line (or the header) for an unknown or missing column, an empty or
// repeated node name, a malformed time, or a node ready before it was created.
std::vector<NodeArrival> read_node_arrivals_csv(const std::string& path);

void write_node_arrivals_csv(const std::vector<NodeArrival>& nodes, std::ostream& out);

}  // namespace millrace::data::importers
