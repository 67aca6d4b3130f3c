// The work graph: items and their dependencies as a Boost.Graph DAG in compressed sparse row
// form (32-bit indices; no per-item allocation beyond the row offsets). Built once from the plan,
// it rejects dangling and cyclic dependencies up front (naming the items involved), tells the
// scheduler which items each one unblocks, and computes the critical path by predicted
// duration, no item starting before its submit time: a lower bound on the makespan (measured
// from time 0) whatever the number of workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/range/iterator_range.hpp>

#include "data/records.h"
#include "data/time.h"

namespace millrace::scheduler {

class PlannedWork;

class WorkGraph {
 public:
  // Edges run from an item to the items that depend on it.
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                   boost::no_property, std::uint32_t, std::uint32_t>;
  using Dependents = boost::iterator_range<Graph::adjacency_iterator>;

  WorkGraph() = default;
  // Throws data::Error naming `plan_name` and the offending items on a duplicate id, a dependency
  // on an unknown item, or a cycle (given as "a -> b -> a").
  WorkGraph(const std::vector<data::WorkItem>& items, const std::string& plan_name);
  // The same for a plan kept in columns; when every item is a plain range item the ids are
  // checked by sorting the ranges (no id is built unless one appears twice).
  WorkGraph(const PlannedWork& plan, const std::string& plan_name);

  std::size_t size() const { return size_; }
  // Indices of the items that depend directly on item `index`, in plan order of the dependent
  // items and, for one dependent, in the order of its depends_on.
  Dependents dependents(std::size_t index) const {
    if (predecessors_.empty()) return {};  // no edges: the graph holds no rows
    auto [first, last] = boost::adjacent_vertices(static_cast<std::uint32_t>(index), graph_);
    return {first, last};
  }
  // Whether some item depends on another.
  bool has_dependencies() const { return !predecessors_.empty(); }
  // Number of direct predecessors of item `index`.
  int predecessor_count(std::size_t index) const {
    return predecessors_.empty() ? 0 : static_cast<int>(predecessors_[index]);
  }
  // Longest path through the graph, summing items' predicted durations, and its items in order.
  data::Micros critical_path() const { return critical_path_; }
  const std::vector<std::size_t>& critical_items() const { return critical_items_; }
  // The same longest path with item i lasting durations[i] (by plan position) instead of its
  // prediction: a simulation's lower bound, from the graph already built (no copy of the plan).
  data::Micros critical_path(const std::vector<data::WorkItem>& items,
                             const std::vector<data::Micros>& durations) const;
  data::Micros critical_path(const PlannedWork& plan, const std::vector<data::Micros>& durations) const;

 private:
  template <typename Items>
  void build(const Items& items, const std::string& plan_name);

  std::size_t size_ = 0;
  Graph graph_;                              // no vertices when no item has a dependency
  std::vector<std::uint32_t> predecessors_;  // empty when no item has a dependency
  std::vector<std::uint32_t> topological_;   // items in dependency order; empty when no item has one
  data::Micros critical_path_ = 0;
  std::vector<std::size_t> critical_items_;
};

}  // namespace millrace::scheduler
