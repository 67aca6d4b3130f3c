// The nodes of a simulated cluster's node pools (sim/node_pools.h) and what their pods hold:
// which nodes are up, what each has allocated per resource, and the node a pod goes to under
// the placement strategy. Resources are numbered (the union of what pools offer and pods ask),
// so a pod's requests are a short vector (a Demand) and a fit test is a few comparisons.
// Each pool keeps its up nodes ranked by the strategy's key (node number, or allocation), so
// finding a node walks the ranking from the best and stops at the first that fits: within a
// pool every node has the same capacity, so the best node before placing is the best after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "data/time.h"
#include "sim/node_pools.h"

namespace millrace::sim {

using Demand = std::vector<std::int64_t>;  // milli-units per resource number

class PoolNodes {
 public:
  static constexpr int kNone = -1;

  // Every pool gets `max` node numbers (pool by pool, in file order); the first `count` are up.
  PoolNodes(const std::vector<NodePool>& pools, Placement placement, std::vector<std::string> resources);

  const std::vector<std::string>& resources() const { return resources_; }
  std::size_t pool_count() const { return pools_.size(); }
  const NodePool& pool(std::size_t p) const { return pools_[p].spec; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  int pool_of(int node) const { return nodes_[node].pool; }
  const std::string& node_name(int node) const { return nodes_[node].name; }
  bool up(int node) const { return nodes_[node].up; }
  int pods_on(int node) const { return nodes_[node].pods; }
  int up_nodes(std::size_t pool) const { return pools_[pool].up; }
  const Demand& capacity(std::size_t pool) const { return pools_[pool].capacity; }

  // Whether `demand` fits in what node has left / in an empty node of the pool.
  bool fits(int node, const Demand& demand) const;
  bool fits_empty(std::size_t pool, const Demand& demand) const;
  // The node the strategy picks for `demand` among the up nodes where it fits, or kNone.
  int best_node(const Demand& demand) const;
  // The resource short for `demand` on the most up nodes ("no node up" when none is).
  std::string short_resource(const Demand& demand) const;

  void take(int node, const Demand& demand);
  void give(int node, const Demand& demand);
  // Orders a node of the pool (one down and not ordered yet) to come up later, or kNone when
  // every node of the pool is up or ordered.
  int order_node(std::size_t pool);
  int ordered_nodes(std::size_t pool) const { return pools_[pool].ordered; }
  // Whether the pool has a node neither up nor ordered.
  bool can_grow(std::size_t pool) const { return pools_[pool].up + pools_[pool].ordered < pools_[pool].spec.max; }
  void bring_up(int node, data::Micros at);
  void take_down(int node, data::Micros at);

  // Node time of the pool from 0 to `until` (intervals past it are cut there), in microseconds.
  data::Micros node_time(std::size_t pool, data::Micros until) const;
  // Allocated resource-time of a resource in the pool so far (advance()), in milli-unit microseconds.
  double allocated_time(std::size_t pool, std::size_t resource) const;
  // Called before every change of allocation so allocated_time() integrates over time.
  void advance(data::Micros now);

 private:
  struct Node {
    std::string name;
    int pool = 0;
    bool up = false;
    bool ordered = false;
    int pods = 0;
    Demand used;
  };
  struct Pool {
    NodePool spec;
    Demand capacity;
    int first_node = 0;
    int up = 0;
    int ordered = 0;
    std::set<std::pair<double, int>> ranked;                      // up nodes, best first
    std::vector<std::pair<data::Micros, data::Micros>> up_spans;  // closed (up, down) spans
    std::vector<data::Micros> up_since;                           // per node, while up
    std::vector<double> allocated_integral;                       // per resource
    Demand allocated;                                             // per resource, now
  };

  double allocation(const Node& node, const Demand* adding) const;
  void change_use(int node, const Demand& demand, int sign);
  double rank_key(int node) const;

  Placement placement_;
  std::vector<std::string> resources_;
  std::vector<Pool> pools_;
  std::vector<Node> nodes_;
  data::Micros integrated_to_ = 0;
};

}  // namespace millrace::sim
