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

class WorkGraph {
 public:
  // Edges run from an item to the items that depend on it.
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                   boost::no_property, std::uint32_t, std::uint32_t>;
  using Dependents = boost::iterator_range<Graph::adjacency_iterator>;

  // Throws data::Error naming `plan_name` and the offending items on a duplicate id, a dependency
  // on an unknown item, or a cycle (given as "a -> b -> a").
  WorkGraph(const std::vector<data::WorkItem>& items, const std::string& plan_name);

  std::size_t size() const { return boost::num_vertices(graph_); }
  // Indices of the items that depend directly on item `index`, in plan order of the dependent
  // items and, for one dependent, in the order of its depends_on.
  Dependents dependents(std::size_t index) const {
    auto [first, last] = boost::adjacent_vertices(static_cast<std::uint32_t>(index), graph_);
    return {first, last};
  }
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

 private:
  Graph graph_;
  std::vector<std::uint32_t> predecessors_;  // empty when no item has a dependency
  std::vector<std::uint32_t> topological_;   // items in dependency order; empty when no item has one
  data::Micros critical_path_ = 0;
  std::vector<std::size_t> critical_items_;
};

}  // namespace millrace::scheduler
