#include "sim/pool_nodes.h"

#include <algorithm>
#include <climits>

namespace millrace::sim {

namespace {

using Numbers = std::map<int, int>;
// Node time sums past 64 bits for pools of 10^9 nodes over hours; exact up to 2^127 microseconds.
__extension__ using WideMicros = __int128;

void add_numbers(Numbers& numbers, int first, int end) {
  if (first < end) numbers.emplace(first, end);
}

int pop_lowest(Numbers& numbers) {
  const auto [first, end] = *numbers.begin();
  numbers.erase(numbers.begin());
  add_numbers(numbers, first + 1, end);
  return first;
}

std::int64_t count_of(const Numbers& numbers) {
  std::int64_t count = 0;
  for (const auto& [first, end] : numbers) count += end - first;
  return count;
}

// Moves the lowest `count` numbers of `from` to `to`.
void move_lowest(Numbers& from, Numbers& to, std::int64_t count) {
  while (count > 0) {
    const auto [first, end] = *from.begin();
    const int moved = static_cast<int>(std::min<std::int64_t>(count, end - first));
    from.erase(from.begin());
    add_numbers(from, first + moved, end);
    add_numbers(to, first, first + moved);
    count -= moved;
  }
}

}  // namespace

PoolNodes::PoolNodes(const std::vector<NodePool>& pools, Placement placement, std::vector<std::string> resources)
    : placement_(placement), resources_(std::move(resources)) {
  int first_number = 0;
  for (const NodePool& spec : pools) {
    Pool pool;
    pool.spec = spec;
    pool.capacity.assign(resources_.size(), 0);
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      auto found = spec.capacity.find(resources_[r]);
      if (found != spec.capacity.end()) pool.capacity[r] = found->second;
    }
    pool.first_number = first_number;
    first_number += spec.max;
    pool.up = spec.count;
    add_numbers(pool.untouched_rest, 0, spec.count);
    add_numbers(pool.down, spec.count, spec.max);
    pool.allocated_integral.assign(resources_.size(), 0);
    pool.allocated.assign(resources_.size(), 0);
    pools_.push_back(std::move(pool));
    materialise_untouched(pools_.size() - 1);
  }
}

int PoolNodes::materialise(std::size_t pool, int ordinal) {
  const NodePool& spec = pools_[pool].spec;
  const std::size_t width = std::max<std::size_t>(3, std::to_string(spec.max - 1).size());
  const std::string number = std::to_string(ordinal);
  Node node;
  node.name = spec.name + "/node-" + std::string(width - number.size(), '0') + number;
  node.pool = static_cast<int>(pool);
  node.ordinal = ordinal;
  node.used.assign(resources_.size(), 0);
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size()) - 1;
}

void PoolNodes::materialise_untouched(std::size_t pool) {
  Pool& p = pools_[pool];
  p.untouched = kNone;
  if (p.untouched_rest.empty()) return;
  const int node = materialise(pool, pop_lowest(p.untouched_rest));
  nodes_[node].up = true;
  p.ranked.insert({rank_key(node), nodes_[node].ordinal, node});
  p.untouched = node;
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
    for (const auto& [key, ordinal, node] : pool.ranked) {
      if (!fits(node, demand)) continue;
      double score = 0;
      if (placement_ == Placement::kMostAllocated) score = -allocation(nodes_[node], &demand);
      if (placement_ == Placement::kLeastAllocated) score = allocation(nodes_[node], &demand);
      // Pools come in node-number order: on a tie the earlier pool's node stays.
      if (best == kNone || score < best_score) {
        best = node;
        best_score = score;
      }
      break;
    }
  }
  return best;
}

std::string PoolNodes::short_resource(const Demand& demand) const {
  std::vector<std::int64_t> short_on(resources_.size(), 0);
  bool any_up = false;
  auto count_short = [&](const Demand& used, const Demand& capacity, std::int64_t nodes) {
    any_up = true;
    for (std::size_t r = 0; r < demand.size(); ++r) {
      if (used[r] + demand[r] > capacity[r]) short_on[r] += nodes;
    }
  };
  for (const Node& node : nodes_) {
    if (node.up) count_short(node.used, pools_[node.pool].capacity, 1);
  }
  const Demand nothing(resources_.size(), 0);
  for (const Pool& pool : pools_) {
    const std::int64_t untouched = count_of(pool.untouched_rest);
    if (untouched > 0) count_short(nothing, pool.capacity, untouched);
  }
  if (!any_up) return "no node up";
  return resources_[std::max_element(short_on.begin(), short_on.end()) - short_on.begin()];
}

void PoolNodes::take(int node, const Demand& demand) {
  change_use(node, demand, +1);
  ++nodes_[node].generation;
  const std::size_t pool = static_cast<std::size_t>(nodes_[node].pool);
  if (pools_[pool].untouched == node) materialise_untouched(pool);
}

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
  auto entry = pool.ranked.find({old_key, n.ordinal, node});
  if (entry == pool.ranked.end()) {
    pool.ranked.insert({new_key, n.ordinal, node});
  } else if (new_key != old_key) {
    auto moved = pool.ranked.extract(entry);
    moved.value() = {new_key, n.ordinal, node};
    pool.ranked.insert(std::move(moved));
  }
}

int PoolNodes::order_node(std::size_t pool, data::Micros at) {
  Pool& p = pools_[pool];
  const int counted = p.down.empty() ? INT_MAX : p.down.begin()->first;
  const int materialised = p.down_nodes.empty() ? INT_MAX : p.down_nodes.begin()->first;
  if (counted == INT_MAX && materialised == INT_MAX) return kNone;
  int node = kNone;
  if (materialised < counted) {
    node = p.down_nodes.begin()->second;
    p.down_nodes.erase(p.down_nodes.begin());
  } else {
    node = materialise(pool, pop_lowest(p.down));
  }
  nodes_[node].ordered = true;
  nodes_[node].ordered_at = at;
  ++p.ordered;
  return node;
}

void PoolNodes::bring_up(int node, data::Micros at) {
  Node& n = nodes_[node];
  Pool& pool = pools_[n.pool];
  n.up = true;
  ++pool.up;
  if (n.ordered) --pool.ordered;
  n.ordered = false;
  ++n.incarnation;
  n.up_since = at;
  pool.ranked.insert({rank_key(node), n.ordinal, node});
}

void PoolNodes::take_down(int node, data::Micros at) {
  Node& n = nodes_[node];
  Pool& pool = pools_[n.pool];
  pool.ranked.erase({rank_key(node), n.ordinal, node});
  n.up = false;
  --pool.up;
  pool.up_spans.push_back(Span{n.up_since, at, 1});
  pool.lives.push_back(Span{n.ordered_at, at, 1});
  pool.down_nodes.emplace(n.ordinal, node);
}

void PoolNodes::lose(int node, data::Micros at) {
  take_down(node, at);
  Node& n = nodes_[node];
  Pool& pool = pools_[n.pool];
  for (std::size_t r = 0; r < n.used.size(); ++r) {
    pool.allocated[r] -= n.used[r];
    n.used[r] = 0;
  }
  n.pods = 0;
}

std::vector<int> PoolNodes::materialise_start_nodes(std::size_t pool) {
  std::vector<int> nodes;
  while (pools_[pool].untouched != kNone) {
    nodes.push_back(pools_[pool].untouched);
    materialise_untouched(pool);
  }
  return nodes;
}

int PoolNodes::take_down_untouched(std::size_t pool, data::Micros at) {
  Pool& p = pools_[pool];
  if (p.untouched == kNone || p.up <= p.spec.min) return 0;
  take_down(p.untouched, at);
  const std::int64_t counted = std::min<std::int64_t>(count_of(p.untouched_rest), p.up - p.spec.min);
  move_lowest(p.untouched_rest, p.down, counted);
  p.up -= static_cast<int>(counted);
  if (counted > 0) {
    p.up_spans.push_back(Span{0, at, counted});
    p.lives.push_back(Span{0, at, counted});
  }
  materialise_untouched(pool);
  return 1 + static_cast<int>(counted);
}

double PoolNodes::node_time(std::size_t pool, data::Micros until) const {
  const Pool& p = pools_[pool];
  WideMicros total = 0;
  for (const Span& span : p.up_spans) {
    total += static_cast<WideMicros>(std::max<data::Micros>(0, std::min(span.to, until) - span.from)) * span.nodes;
  }
  for (const Node& node : nodes_) {
    if (node.up && node.pool == static_cast<int>(pool)) total += std::max<data::Micros>(0, until - node.up_since);
  }
  total += static_cast<WideMicros>(std::max<data::Micros>(0, until)) * count_of(p.untouched_rest);
  return static_cast<double>(total);
}

std::vector<std::pair<data::Micros, std::int64_t>> PoolNodes::lifetimes(std::size_t pool, data::Micros end) const {
  const Pool& p = pools_[pool];
  std::vector<std::pair<data::Micros, std::int64_t>> lives;
  for (const Span& life : p.lives) lives.emplace_back(life.to - life.from, life.nodes);
  for (const Node& node : nodes_) {
    if ((node.up || node.ordered) && node.pool == static_cast<int>(pool)) {
      lives.emplace_back(std::max<data::Micros>(0, end - node.ordered_at), 1);
    }
  }
  const std::int64_t untouched = count_of(p.untouched_rest);
  if (untouched > 0) lives.emplace_back(std::max<data::Micros>(0, end), untouched);
  return lives;
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
