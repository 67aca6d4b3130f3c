// The nodes of a simulated cluster's node pools (sim/node_pools.h) and what their pods hold:
// which nodes are up, what each has allocated per resource, and the node a pod goes to under
// the placement strategy. Resources are numbered (the union of what pools offer and pods ask),
// so a pod's requests are a short vector (a Demand) and a fit test is a few comparisons.
// Each pool keeps its up nodes ranked by the strategy's key (allocation, then node number), so
// finding a node walks the ranking from the best and stops at the first that fits: within a
// pool every node has the same capacity, so the best node before placing is the best after.
//
// A pool costs what it runs, not what it declares: a node is materialised (given a record, a
// dense index and a place in the ranking) only once it matters. The nodes up since the start
// that never held a pod are identical and only counted, but for the lowest-numbered of them,
// which stands for them all in the ranking (it is the best of them under every strategy); the
// nodes never up, or taken down untouched, are counted too, and the lowest comes up first when
// the autoscaler orders one. Memory and time grow with pools and with nodes in use, not with a
// pool's `count` or `max`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
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
  // Nodes are named by a dense index (in the order they were materialised): what the cluster's
  // events carry. number() is the node's number pool by pool, as declared.
  int pool_of(int node) const { return nodes_[node].pool; }
  int number(int node) const { return pools_[nodes_[node].pool].first_number + nodes_[node].ordinal; }
  const std::string& node_name(int node) const { return nodes_[node].name; }
  bool up(int node) const { return nodes_[node].up; }
  int pods_on(int node) const { return nodes_[node].pods; }
  // Bumped each time a pod arrives on the node: an idle check armed before then is stale.
  std::uint64_t generation(int node) const { return nodes_[node].generation; }
  int up_nodes(std::size_t pool) const { return pools_[pool].up; }
  int ordered_nodes(std::size_t pool) const { return pools_[pool].ordered; }
  // Bumped each time the node comes up: an event armed for an earlier life of it is stale.
  std::uint64_t incarnation(int node) const { return nodes_[node].incarnation; }
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
  // Orders, at `at`, the lowest-numbered node of the pool neither up nor ordered to come up later,
  // or returns kNone when every node of the pool is up or ordered. A node is billed from its order.
  int order_node(std::size_t pool, data::Micros at);
  // Whether the pool has a node neither up nor ordered.
  bool can_grow(std::size_t pool) const { return pools_[pool].up + pools_[pool].ordered < pools_[pool].spec.max; }
  void bring_up(int node, data::Micros at);
  void take_down(int node, data::Micros at);
  // A node taken back at `at` with its pods on it (a spot interruption): down, holding nothing.
  void lose(int node, data::Micros at);
  // Gives each of the pool's nodes up since the start that never held a pod a record of its own
  // (a spot node's life is its own), and returns them; the pool then counts none untouched.
  std::vector<int> materialise_start_nodes(std::size_t pool);
  // The scale-down check of the nodes up since the start that never held a pod, at `at` (each
  // was idle since 0): they go in node order while more than the pool's min are up. Returns how
  // many went.
  int take_down_untouched(std::size_t pool, data::Micros at);

  // Node time of the pool from 0 to `until` (intervals past it are cut there), in microseconds
  // (a double: a pool of 2 x 10^9 nodes for a day is past 64-bit microseconds).
  double node_time(std::size_t pool, data::Micros until) const;
  // The billed lifetimes of the pool's nodes, each from its order (the start, for the nodes up
  // from it) to its removal, or to `end` for a node not removed (0 when ordered after it), as
  // (lifetime, nodes that lived it): one entry per node in use, one for the nodes counted alike.
  std::vector<std::pair<data::Micros, std::int64_t>> lifetimes(std::size_t pool, data::Micros end) const;
  // Allocated resource-time of a resource in the pool so far (advance()), in milli-unit microseconds.
  double allocated_time(std::size_t pool, std::size_t resource) const;
  // Called before every change of allocation so allocated_time() integrates over time.
  void advance(data::Micros now);

 private:
  struct Node {
    std::string name;
    int pool = 0;
    int ordinal = 0;  // its number within the pool
    bool up = false;
    bool ordered = false;
    int pods = 0;
    std::uint64_t generation = 0;
    std::uint64_t incarnation = 0;
    data::Micros up_since = 0;
    data::Micros ordered_at = 0;  // billed from then (0: up from the start)
    Demand used;
  };
  // Node numbers of a pool, counted: [first, end) intervals keyed by first, in order.
  using Numbers = std::map<int, int>;
  // Up nodes as (key, number within the pool, node): the best first.
  using Ranking = std::set<std::tuple<double, int, int>>;
  // `nodes` nodes up over the same (up, down) span.
  struct Span {
    data::Micros from = 0;
    data::Micros to = 0;
    std::int64_t nodes = 1;
  };
  struct Pool {
    NodePool spec;
    Demand capacity;
    int first_number = 0;
    int up = 0;
    int ordered = 0;
    Ranking ranked;
    int untouched = kNone;                // the materialised one of the untouched up nodes
    Numbers untouched_rest;               // the others, counted
    Numbers down;                         // neither up, ordered nor materialised
    std::map<int, int> down_nodes;        // materialised nodes down: number in the pool -> node
    std::vector<Span> up_spans;           // closed spans
    std::vector<Span> lives;              // closed lifetimes: order (or the start) to removal
    std::vector<double> allocated_integral;  // per resource
    Demand allocated;                     // per resource, now
  };

  int materialise(std::size_t pool, int ordinal);
  // Makes the lowest of the pool's untouched up nodes the one materialised for them.
  void materialise_untouched(std::size_t pool);
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
