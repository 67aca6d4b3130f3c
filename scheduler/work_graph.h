// The work graph: items and their dependencies as a Boost.Graph DAG. Built once from the plan,
// it rejects dangling and cyclic dependencies up front (naming the items involved), tells the
// scheduler which items each one unblocks, and computes the critical path by predicted
// duration: a lower bound on the makespan whatever the number of workers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/records.h"
#include "data/time.h"

namespace millrace::scheduler {

class WorkGraph {
 public:
  // Throws data::Error naming `plan_name` and the offending items on a duplicate id, a dependency
  // on an unknown item, or a cycle (given as "a -> b -> a").
  WorkGraph(const std::vector<data::WorkItem>& items, const std::string& plan_name);

  std::size_t size() const { return dependents_.size(); }
  // Indices of the items that depend directly on item `index`.
  const std::vector<std::size_t>& dependents(std::size_t index) const { return dependents_[index]; }
  // Number of direct predecessors of item `index`.
  int predecessor_count(std::size_t index) const { return predecessors_[index]; }
  // Longest path through the graph, summing items' predicted durations, and its items in order.
  data::Micros critical_path() const { return critical_path_; }
  const std::vector<std::size_t>& critical_items() const { return critical_items_; }

 private:
  std::vector<std::vector<std::size_t>> dependents_;
  std::vector<int> predecessors_;
  data::Micros critical_path_ = 0;
  std::vector<std::size_t> critical_items_;
};

}  // namespace millrace::scheduler
