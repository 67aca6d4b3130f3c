#include "scheduler/work_graph.h"

#include <algorithm>
#include <memory_resource>
#include <string_view>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/graph/topological_sort.hpp>

#include "data/error.h"

namespace millrace::scheduler {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

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
    for (auto [e, end] = boost::out_edges(at, graph); e != end; ++e) {
      std::size_t target = boost::target(*e, graph);
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

}  // namespace

WorkGraph::WorkGraph(const std::vector<data::WorkItem>& items, const std::string& plan_name)
    : dependents_(items.size()), predecessors_(items.size(), 0) {
  // Keys view the items' ids; nodes come from one arena, released together.
  std::pmr::monotonic_buffer_resource arena;
  std::pmr::unordered_map<std::string_view, std::size_t> index_of(&arena);
  index_of.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!index_of.emplace(items[i].id, i).second) {
      throw data::Error(plan_name, "item id '" + items[i].id + "' appears twice");
    }
  }
  bool any_dependency = std::any_of(items.begin(), items.end(),
                                    [](const data::WorkItem& item) { return !item.depends_on.empty(); });
  if (!any_dependency) {
    // Independent items: the critical path is the longest single item.
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (critical_items_.empty() || items[i].predicted > critical_path_) {
        critical_path_ = items[i].predicted;
        critical_items_ = {i};
      }
    }
    return;
  }
  Graph graph(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (const std::string& dep : items[i].depends_on) {
      auto found = index_of.find(dep);
      if (found == index_of.end()) {
        throw data::Error(plan_name, "item '" + items[i].id + "' depends on unknown item '" + dep + "'");
      }
      boost::add_edge(found->second, i, graph);
      dependents_[found->second].push_back(i);
      ++predecessors_[i];
    }
  }

  std::vector<int> component(items.size());
  int count = items.empty() ? 0 : boost::strong_components(graph, component.data());
  if (count < static_cast<int>(items.size())) {
    std::vector<int> size(count, 0);
    for (int c : component) ++size[c];
    int which = static_cast<int>(std::find_if(size.begin(), size.end(), [](int s) { return s > 1; }) - size.begin());
    throw data::Error(plan_name, "dependency cycle: " + describe_cycle(graph, component, which, items));
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (boost::edge(i, i, graph).second) {
      throw data::Error(plan_name, "dependency cycle: " + items[i].id + " -> " + items[i].id);
    }
  }

  std::vector<std::size_t> order;
  order.reserve(items.size());
  boost::topological_sort(graph, std::back_inserter(order));
  std::reverse(order.begin(), order.end());
  std::vector<data::Micros> finish(items.size(), 0);
  std::vector<std::size_t> via(items.size(), items.size());
  for (std::size_t v : order) {
    finish[v] += items[v].predicted;
    for (std::size_t next : dependents_[v]) {
      if (via[next] == items.size() || finish[v] > finish[next]) {
        finish[next] = finish[v];
        via[next] = v;
      }
    }
  }
  if (items.empty()) return;
  std::size_t last = static_cast<std::size_t>(std::max_element(finish.begin(), finish.end()) - finish.begin());
  critical_path_ = finish[last];
  for (std::size_t v = last; v != items.size(); v = via[v]) critical_items_.push_back(v);
  std::reverse(critical_items_.begin(), critical_items_.end());
}

}  // namespace millrace::scheduler
