#include "sim/pool_nodes.h"

#include <algorithm>


namespace millrace::sim {

PoolNodes::PoolNodes(const std::vector<NodePool>& pools, Placement placement, std::vector<std::string> resources)
    : placement_(placement), resources_(std::move(resources)) {
  for (const NodePool& spec : pools) {
    Pool pool;
    pool.spec = spec;
    pool.capacity.assign(resources_.size(), 0);
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      auto found = spec.capacity.find(resources_[r]);
      if (found != spec.capacity.end()) pool.capacity[r] = found->second;
    }
    pool.first_node = static_cast<int>(nodes_.size());
    pool.up_since.assign(spec.max, 0);
    pool.allocated_integral.assign(resources_.size(), 0);
    pool.allocated.assign(resources_.size(), 0);
    const int width = std::max<int>(3, static_cast<int>(std::to_string(spec.max - 1).size()));
    for (int n = 0; n < spec.max; ++n) {
      std::string number = std::to_string(n);
      nodes_.push_back(Node{spec.name + "/node-" + std::string(width - number.size(), '0') + number,
                            static_cast<int>(pools_.size()), false, false, 0, Demand(resources_.size(), 0)});
    }
    pools_.push_back(std::move(pool));
  }
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    for (int n = 0; n < pools_[p].spec.count; ++n) bring_up(pools_[p].first_node + n, 0);
  }
}

bool PoolNodes::fits(int node, const Demand& demand) const {
  const Node& n = nodes_[node];
  const Demand& capacity = pools_[n.pool].capacity;
  for (std::size_t r = 0; r < demand.size(); ++r) {
    if (n.used[r] + demand[r] > capacity[r]) return false;
  }
  return true;
}

bool PoolNodes::fits_empty(std::size_t pool, const Demand& demand) const {
  for (std::size_t r = 0; r < demand.size(); ++r) {
    if (demand[r] > pools_[pool].capacity[r]) return false;
  }
  return true;
}

double PoolNodes::allocation(const Node& node, const Demand* adding) const {
  const Demand& capacity = pools_[node.pool].capacity;
  double sum = 0;
  for (std::size_t r = 0; r < capacity.size(); ++r) {
    if (capacity[r] == 0) continue;
    const std::int64_t used = node.used[r] + (adding ? (*adding)[r] : 0);
    sum += static_cast<double>(used) / static_cast<double>(capacity[r]);
  }
  return sum;
}

double PoolNodes::rank_key(int node) const {
  switch (placement_) {
    case Placement::kFirstFit: return 0;  // the node number alone orders them
    case Placement::kMostAllocated: return -allocation(nodes_[node], nullptr);
    case Placement::kLeastAllocated: return allocation(nodes_[node], nullptr);
  }
  return 0;
}

int PoolNodes::best_node(const Demand& demand) const {
  int best = kNone;
  double best_score = 0;
  for (const Pool& pool : pools_) {
    if (!fits_empty(&pool - pools_.data(), demand)) continue;
    for (const auto& [key, node] : pool.ranked) {
      if (!fits(node, demand)) continue;
      double score = 0;
      if (placement_ == Placement::kMostAllocated) score = -allocation(nodes_[node], &demand);
      if (placement_ == Placement::kLeastAllocated) score = allocation(nodes_[node], &demand);
      if (best == kNone || score < best_score || (score == best_score && node < best)) {
        best = node;
        best_score = score;
      }
      break;
    }
  }
  return best;
}

std::string PoolNodes::short_resource(const Demand& demand) const {
  std::vector<int> short_on(resources_.size(), 0);
  bool any_up = false;
  for (const Node& node : nodes_) {
    if (!node.up) continue;
    any_up = true;
    for (std::size_t r = 0; r < demand.size(); ++r) {
      if (node.used[r] + demand[r] > pools_[node.pool].capacity[r]) ++short_on[r];
    }
  }
  if (!any_up) return "no node up";
  return resources_[std::max_element(short_on.begin(), short_on.end()) - short_on.begin()];
}

void PoolNodes::take(int node, const Demand& demand) { change_use(node, demand, +1); }

void PoolNodes::give(int node, const Demand& demand) { change_use(node, demand, -1); }

// The node's entry in its pool's ranking moves only when its key changes (never under first-fit,
// whose key is the node number alone), and is then re-keyed in place: the same tree node, so no
// allocation per pod (a node not in the ranking is put in it).
void PoolNodes::change_use(int node, const Demand& demand, int sign) {
  Node& n = nodes_[node];
  Pool& pool = pools_[n.pool];
  const double old_key = rank_key(node);
  for (std::size_t r = 0; r < demand.size(); ++r) {
    n.used[r] += sign * demand[r];
    pool.allocated[r] += sign * demand[r];
  }
  n.pods += sign;
  const double new_key = rank_key(node);
  auto entry = pool.ranked.find({old_key, node});
  if (entry == pool.ranked.end()) {
    pool.ranked.insert({new_key, node});
  } else if (new_key != old_key) {
    auto moved = pool.ranked.extract(entry);
    moved.value() = {new_key, node};
    pool.ranked.insert(std::move(moved));
  }
}

int PoolNodes::order_node(std::size_t pool) {
  Pool& p = pools_[pool];
  for (int n = p.first_node; n < p.first_node + p.spec.max; ++n) {
    if (nodes_[n].up || nodes_[n].ordered) continue;
    nodes_[n].ordered = true;
    ++p.ordered;
    return n;
  }
  return kNone;
}

void PoolNodes::bring_up(int node, data::Micros at) {
  Node& n = nodes_[node];
  Pool& pool = pools_[n.pool];
  n.up = true;
  ++pool.up;
  if (n.ordered) --pool.ordered;
  n.ordered = false;
  pool.up_since[node - pool.first_node] = at;
  pool.ranked.insert({rank_key(node), node});
}

void PoolNodes::take_down(int node, data::Micros at) {
  Node& n = nodes_[node];
  Pool& pool = pools_[n.pool];
  pool.ranked.erase({rank_key(node), node});
  n.up = false;
  --pool.up;
  pool.up_spans.emplace_back(pool.up_since[node - pool.first_node], at);
}

data::Micros PoolNodes::node_time(std::size_t pool, data::Micros until) const {
  const Pool& p = pools_[pool];
  data::Micros total = 0;
  for (const auto& [from, to] : p.up_spans) total += std::max<data::Micros>(0, std::min(to, until) - from);
  for (int n = 0; n < p.spec.max; ++n) {
    if (nodes_[p.first_node + n].up) total += std::max<data::Micros>(0, until - p.up_since[n]);
  }
  return total;
}

void PoolNodes::advance(data::Micros now) {
  if (now <= integrated_to_) return;
  const double span = static_cast<double>(now - integrated_to_);
  for (Pool& pool : pools_) {
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      pool.allocated_integral[r] += static_cast<double>(pool.allocated[r]) * span;
    }
  }
  integrated_to_ = now;
}

double PoolNodes::allocated_time(std::size_t pool, std::size_t resource) const {
  return pools_[pool].allocated_integral[resource];
}

}  // namespace millrace::sim
