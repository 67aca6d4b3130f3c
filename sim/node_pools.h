// Node pools of a simulated Kubernetes cluster: each pool one machine type (a capacity per
// resource, in milli-units of a Kubernetes quantity), `count` nodes at the start, autoscaled
// between `min` and `max` (a node asked for comes up `provision_delay` later, or after a draw
// from a model's fitted provisioning delay when the file gives none; an empty node above `min`
// goes after the scale-down delay), and the placement strategy that picks a node for each pod
// among those where every request fits. Read from `--node-pools FILE`:
//   CSV   pool,count,min,max,provision_delay,capacity.NAME,...   one pool per line, e.g.
//         cpu-pool,2,0,10,90s,4,16Gi   (provision_delay a duration as the options take it,
//         data/typed_duration.h: 90, 90s, 2m, 1.5h, empty: not given; capacities as Kubernetes
//         quantities; an empty capacity cell: the pool has none of that resource); optional
//         columns price (per node-hour, a decimal: data/money.h) and billing (data/billing.h:
//         per-second:60s, per-minute, per-hour; empty: per second)
//   JSON  {"pools": [{"name", "count", "min", "max", "provision_delay", "capacity": {NAME: Q},
//         "price", "billing"}]} or the bare array (provision_delay a number of seconds or a
//         duration string: "2m"; absent: not given; price a decimal string or number)
// Spot capacity (both forms; sim/spot_capacity.h): `capacity_type` on-demand (the default, also
// an empty cell) or spot, and `interruption_rate`, a spot node's interruptions per node-hour (a
// decimal, e.g. 0.05: a node lives 20 h on average, exponentially distributed); a spot pool
// without one takes a fitted model's rate (data/cluster_model.h) or is refused by file:line; or,
// instead of a rate, `lifetime`, a distribution of node lifetimes (sim/node_lifetime.h:
// weibull:shape=0.8,scale=12h; quoted in CSV, as it holds a comma), never both.
// Errors name file:line (JSON: the line the pool starts on, and its index) and the field, with
// the value; a column or key that is no pool field (`prise`, `capcity.cpu`) is refused so, naming
// the known ones.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data/billing.h"
#include "data/money.h"
#include "data/records.h"
#include "scheduler/planned_work.h"
#include "sim/node_lifetime.h"
#include "data/time.h"

namespace millrace::sim {

// How a pod's node is chosen among those where it fits: the lowest-numbered node (first-fit),
// the node most allocated after placing it (most-allocated: bin packing) or least allocated
// (least-allocated: spreading, the Kubernetes default). Allocation is sum over the pool's
// resources of allocated / capacity; ties go to the lowest-numbered node.
enum class Placement { kFirstFit, kMostAllocated, kLeastAllocated };

// Throws data::Error naming `where` and the known names when `name` is none of them.
Placement placement_named(const std::string& name, const std::string& where);
const char* to_string(Placement placement);

// Which pool the autoscaler grows for a pod that fits nowhere, among those whose machine fits it
// and that may grow: the first in file order (first), or the one whose new node would waste the
// least (least-waste, as cluster-autoscaler's expander: the smallest mean share of the machine's
// resources the pod leaves unrequested; ties to the first).
enum class Expander { kFirst, kLeastWaste };

Expander expander_named(const std::string& name, const std::string& where);
const char* to_string(Expander expander);

struct NodePool {
  std::string name;
  int count = 1;                    // nodes at the start
  int min = 0;
  int max = 1;
  data::Micros provision_delay = 0;
  data::Quantities capacity;  // per node, milli-units
  // provision_delay was given (a pools file left it out: false): it wins over a fitted
  // provisioning delay (data/cluster_model.h), which a node of a pool without one is drawn from
  // instead (provision_delay, 0, when nothing is fitted).
  bool provision_delay_given = true;
  std::optional<data::Money> price = std::nullopt;  // per node-hour; unset: the pool is not priced
  data::BillingRule billing = {};
  bool spot = false;                         // capacity_type spot: its nodes are interrupted
  std::optional<double> interruption_rate{};  // per node-hour; spot pools only
  std::optional<NodeLifetime> lifetime{};     // spot pools only, instead of a rate
  std::string declared_at{};                  // file:line of the pool, for errors found later
};

struct NodePoolsConfig {
  std::vector<NodePool> pools;      // empty: the cluster is slots (SimClusterConfig::nodes)
  Placement placement = Placement::kLeastAllocated;
  Expander expander = Expander::kFirst;
  data::Micros scale_down_delay = 10 * 60 * data::kMicrosPerSecond;  // cluster-autoscaler's default
};

// Throws data::Error naming the pool when min <= count <= max, max >= 1 or a name is broken, when
// some pools have a price and others none, and
// when the pools' max add up to more node numbers than an int holds. A pool of 2 x 10^9 nodes
// costs what its nodes in use cost (sim/pool_nodes.h).
void check_node_pools(const std::vector<NodePool>& pools, const std::string& where);

std::vector<NodePool> read_node_pools(const std::string& path);

// Throws data::Error naming the first item whose requests fit no pool's empty machine, with what
// it asks, the pools' capacities and the resource short on each ("it could never start").
void check_fits_a_pool(const std::vector<data::WorkItem>& items, const std::vector<NodePool>& pools);
void check_fits_a_pool(const scheduler::PlannedWork& plan, const std::vector<NodePool>& pools);

}  // namespace millrace::sim
