#include "scheduler/work_graph.h"

#include <algorithm>
#include <limits>
#include <memory_resource>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <boost/graph/strong_components.hpp>
#include <boost/graph/topological_sort.hpp>

#include "data/error.h"
#include "scheduler/planned_work.h"

namespace millrace::scheduler {

namespace {

using Graph = WorkGraph::Graph;

// The two forms of a plan as the graph reads them: ids (as keys and in messages), dependencies,
// predictions and submit times.
struct WholeItems {
  const std::vector<data::WorkItem>& items;
  std::size_t size() const { return items.size(); }
  bool plain_ranges() const { return false; }
  const data::Range& range(std::size_t) const { return kNoRange; }
  std::string_view key(std::size_t i) const { return items[i].id; }
  const std::string& id(std::size_t i) const { return items[i].id; }
  const std::vector<std::string>& depends_on(std::size_t i) const { return items[i].depends_on; }
  data::Micros predicted(std::size_t i) const { return items[i].predicted; }
  data::Micros submit_at(std::size_t i) const { return items[i].submit_at; }
  static constexpr data::Range kNoRange{};
};

struct ColumnItems {
  // With keys: every id built, for the check that they are unique.
  ColumnItems(const PlannedWork& plan, bool with_keys) : plan(plan) {
    if (!with_keys || plan.all_plain()) return;
    keys.reserve(plan.size());
    for (std::size_t i = 0; i < plan.size(); ++i) keys.push_back(plan.id(i));
  }
  const PlannedWork& plan;
  std::vector<std::string> keys;  // every id, built only when some item is not plain
  std::size_t size() const { return plan.size(); }
  bool plain_ranges() const { return plan.all_plain(); }
  const data::Range& range(std::size_t i) const { return *plan.range(i); }
  std::string_view key(std::size_t i) const { return keys[i]; }
  std::string id(std::size_t i) const { return plan.id(i); }
  const std::vector<std::string>& depends_on(std::size_t i) const {
    static const std::vector<std::string> kNone;
    return plan.plain(i) ? kNone : plan.whole(i).depends_on;
  }
  data::Micros predicted(std::size_t i) const { return plan.predicted(i); }
  data::Micros submit_at(std::size_t i) const { return plan.submit_at(i); }
};

// The first item (in plan order) whose range an earlier item has too, or `count` when none: the
// ranges sorted with their positions, the second of each run of equal ones.
template <typename Items>
std::size_t first_repeated_range(const Items& items) {
  std::vector<std::uint32_t> order(items.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](std::uint32_t i) { return std::make_tuple(items.range(i).first, items.range(i).count, i); };
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  std::size_t first = items.size();
  for (std::size_t k = 1; k < order.size(); ++k) {
    if (items.range(order[k]) == items.range(order[k - 1])) first = std::min<std::size_t>(first, order[k]);
  }
  return first;
}

// Walks edges inside one strongly connected component from its first member until a vertex
// repeats: that walk is a cycle, returned as item ids "a -> b -> ... -> a".
template <typename Items>
std::string describe_cycle(const Graph& graph, const std::vector<int>& component, int which, const Items& items) {
  std::size_t start = 0;
  while (component[start] != which) ++start;
  std::vector<std::size_t> path{start};
  std::vector<int> seen_at(items.size(), -1);
  seen_at[start] = 0;
  for (std::size_t at = start;;) {
    std::size_t next = at;
    auto [first, last] = boost::adjacent_vertices(static_cast<std::uint32_t>(at), graph);
    for (std::size_t target : boost::make_iterator_range(first, last)) {
      if (component[target] == which) {
        next = target;
        break;
      }
    }
    if (seen_at[next] >= 0) {
      std::string text;
      for (std::size_t i = static_cast<std::size_t>(seen_at[next]); i < path.size(); ++i) {
        text += items.id(path[i]) + " -> ";
      }
      return text + items.id(next);
    }
    seen_at[next] = static_cast<int>(path.size());
    path.push_back(next);
    at = next;
  }
}

struct LongestPath {
  data::Micros length = 0;
  std::vector<std::size_t> items;  // in order along the path
};

// The longest path when item i lasts duration(i), no item starting before its submit time.
// `order` is the items in dependency order, or empty when no item depends on another (then the
// path is the longest single item, the first of equal ones).
template <typename Items, typename Duration>
LongestPath longest_path(const Graph& graph, const std::vector<std::uint32_t>& order, const Items& items,
                         Duration duration) {
  LongestPath path;
  if (order.empty()) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      const data::Micros end = items.submit_at(i) + duration(i);
      if (path.items.empty() || end > path.length) {
        path.length = end;
        path.items = {i};
      }
    }
    return path;
  }
  std::vector<data::Micros> finish(items.size(), 0);
  std::vector<std::size_t> via(items.size(), items.size());
  for (std::size_t v : order) {
    finish[v] = std::max(finish[v], items.submit_at(v)) + duration(v);
    auto [first, last] = boost::adjacent_vertices(static_cast<std::uint32_t>(v), graph);
    for (std::size_t next : boost::make_iterator_range(first, last)) {
      if (via[next] == items.size() || finish[v] > finish[next]) {
        finish[next] = finish[v];
        via[next] = v;
      }
    }
  }
  std::size_t last = static_cast<std::size_t>(std::max_element(finish.begin(), finish.end()) - finish.begin());
  path.length = finish[last];
  for (std::size_t v = last; v != items.size(); v = via[v]) path.items.push_back(v);
  std::reverse(path.items.begin(), path.items.end());
  return path;
}

}  // namespace

WorkGraph::WorkGraph(const std::vector<data::WorkItem>& items, const std::string& plan_name) {
  build(WholeItems{items}, plan_name);
}

WorkGraph::WorkGraph(const PlannedWork& plan, const std::string& plan_name) {
  build(ColumnItems(plan, true), plan_name);
}

template <typename Items>
void WorkGraph::build(const Items& items, const std::string& plan_name) {
  size_ = items.size();
  // The graph indexes vertices and edges with 32 bits.
  constexpr std::size_t kMaxCount = std::numeric_limits<std::uint32_t>::max() - 1;
  auto too_many = [&](std::size_t edge_count) {
    return data::Error(plan_name, "plan has " + std::to_string(items.size()) + " items and " +
                                      std::to_string(edge_count) + " dependencies; a work graph holds at most " +
                                      std::to_string(kMaxCount) + " of each");
  };
  if (items.plain_ranges()) {
    if (items.size() > kMaxCount) throw too_many(0);
    // No dependencies; ids are the ranges' END/COUNT forms, equal exactly when the ranges are.
    const std::size_t repeated = first_repeated_range(items);
    if (repeated != items.size()) throw data::Error(plan_name, "item id '" + items.id(repeated) + "' appears twice");
    LongestPath path = longest_path(graph_, topological_, items, [&](std::size_t i) { return items.predicted(i); });
    critical_path_ = path.length;
    critical_items_ = std::move(path.items);
    return;
  }
  // Keys view the items' ids; nodes come from one arena, released together.
  std::pmr::monotonic_buffer_resource arena;
  std::pmr::unordered_map<std::string_view, std::uint32_t> index_of(&arena);
  index_of.reserve(items.size());
  std::size_t edge_count = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!index_of.emplace(items.key(i), static_cast<std::uint32_t>(i)).second) {
      throw data::Error(plan_name, "item id '" + items.id(i) + "' appears twice");
    }
    edge_count += items.depends_on(i).size();
  }
  if (items.size() > kMaxCount || edge_count > kMaxCount) {
    throw too_many(edge_count);
  }
  if (edge_count == 0) {
    LongestPath path = longest_path(graph_, topological_, items, [&](std::size_t i) { return items.predicted(i); });
    critical_path_ = path.length;
    critical_items_ = std::move(path.items);
    return;
  }
  // Edges in plan order of the dependent item, then its depends_on order; the unsorted
  // constructor's histogram sort by source keeps that order within each source's row, which is
  // the order dependents() gives (tested: the scheduler's output depends on it).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(edge_count);
  predecessors_.assign(items.size(), 0);
  std::size_t first_self_loop = items.size();
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (const std::string& dep : items.depends_on(i)) {
      auto found = index_of.find(dep);
      if (found == index_of.end()) {
        throw data::Error(plan_name, "item '" + items.id(i) + "' depends on unknown item '" + dep + "'");
      }
      if (found->second == i && first_self_loop == items.size()) first_self_loop = i;
      edges.emplace_back(found->second, static_cast<std::uint32_t>(i));
      ++predecessors_[i];
    }
  }
  graph_ = Graph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), items.size());
  edges = {};

  std::vector<int> component(items.size());
  int count = boost::strong_components(
      graph_, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, graph_)));
  if (count < static_cast<int>(items.size())) {
    std::vector<int> size(count, 0);
    for (int c : component) ++size[c];
    int which = static_cast<int>(std::find_if(size.begin(), size.end(), [](int s) { return s > 1; }) - size.begin());
    throw data::Error(plan_name, "dependency cycle: " + describe_cycle(graph_, component, which, items));
  }
  if (first_self_loop != items.size()) {
    const std::string id = items.id(first_self_loop);
    throw data::Error(plan_name, "dependency cycle: " + id + " -> " + id);
  }

  std::vector<std::size_t> order;
  order.reserve(items.size());
  boost::topological_sort(graph_, std::back_inserter(order));
  topological_.assign(order.rbegin(), order.rend());
  LongestPath path = longest_path(graph_, topological_, items, [&](std::size_t i) { return items.predicted(i); });
  critical_path_ = path.length;
  critical_items_ = std::move(path.items);
}

data::Micros WorkGraph::critical_path(const std::vector<data::WorkItem>& items,
                                      const std::vector<data::Micros>& durations) const {
  return longest_path(graph_, topological_, WholeItems{items}, [&](std::size_t i) { return durations[i]; }).length;
}

data::Micros WorkGraph::critical_path(const PlannedWork& plan, const std::vector<data::Micros>& durations) const {
  const ColumnItems items(plan, false);
  return longest_path(graph_, topological_, items, [&](std::size_t i) { return durations[i]; }).length;
}

}  // namespace millrace::scheduler
