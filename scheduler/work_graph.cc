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

namespace millrace::scheduler {

namespace {

using Graph = WorkGraph::Graph;

// Walks edges inside one strongly connected component from its first member until a vertex
// repeats: that walk is a cycle, returned as item ids "a -> b -> ... -> a".
std::string describe_cycle(const Graph& graph, const std::vector<int>& component, int which,
                           const std::vector<data::WorkItem>& items) {
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
        text += items[path[i]].id + " -> ";
      }
      return text + items[next].id;
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
template <typename Duration>
LongestPath longest_path(const Graph& graph, const std::vector<std::uint32_t>& order,
                         const std::vector<data::WorkItem>& items, Duration duration) {
  LongestPath path;
  if (order.empty()) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      const data::Micros end = items[i].submit_at + duration(i);
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
    finish[v] = std::max(finish[v], items[v].submit_at) + duration(v);
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
  // Keys view the items' ids; nodes come from one arena, released together.
  std::pmr::monotonic_buffer_resource arena;
  std::pmr::unordered_map<std::string_view, std::uint32_t> index_of(&arena);
  index_of.reserve(items.size());
  std::size_t edge_count = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!index_of.emplace(items[i].id, static_cast<std::uint32_t>(i)).second) {
      throw data::Error(plan_name, "item id '" + items[i].id + "' appears twice");
    }
    edge_count += items[i].depends_on.size();
  }
  // The graph indexes vertices and edges with 32 bits.
  constexpr std::size_t kMaxCount = std::numeric_limits<std::uint32_t>::max() - 1;
  if (items.size() > kMaxCount || edge_count > kMaxCount) {
    throw data::Error(plan_name, "plan has " + std::to_string(items.size()) + " items and " +
                                     std::to_string(edge_count) + " dependencies; a work graph holds at most " +
                                     std::to_string(kMaxCount) + " of each");
  }
  if (edge_count == 0) {
    graph_ = Graph(static_cast<std::uint32_t>(items.size()));
    LongestPath path = longest_path(graph_, topological_, items, [&](std::size_t i) { return items[i].predicted; });
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
    for (const std::string& dep : items[i].depends_on) {
      auto found = index_of.find(dep);
      if (found == index_of.end()) {
        throw data::Error(plan_name, "item '" + items[i].id + "' depends on unknown item '" + dep + "'");
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
    const std::string& id = items[first_self_loop].id;
    throw data::Error(plan_name, "dependency cycle: " + id + " -> " + id);
  }

  std::vector<std::size_t> order;
  order.reserve(items.size());
  boost::topological_sort(graph_, std::back_inserter(order));
  topological_.assign(order.rbegin(), order.rend());
  LongestPath path = longest_path(graph_, topological_, items, [&](std::size_t i) { return items[i].predicted; });
  critical_path_ = path.length;
  critical_items_ = std::move(path.items);
}

data::Micros WorkGraph::critical_path(const std::vector<data::WorkItem>& items,
                                      const std::vector<data::Micros>& durations) const {
  return longest_path(graph_, topological_, items, [&](std::size_t i) { return durations[i]; }).length;
}

}  // namespace millrace::scheduler
