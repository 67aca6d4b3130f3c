// A plan with its work graph, built once (which validates the plan: unique ids, known and acyclic
// dependencies) and then only read. Runs of the same plan share one: the replicas of a comparison
// simulate it without copying the items or building the graph again.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "data/records.h"
#include "scheduler/work_graph.h"

namespace millrace::scheduler {

struct PlannedWork {
  // Throws data::Error naming `plan_name`, as WorkGraph does.
  PlannedWork(std::vector<data::WorkItem> plan, const std::string& plan_name)
      : items(std::move(plan)), graph(items, plan_name) {}

  std::vector<data::WorkItem> items;
  WorkGraph graph;
};

}  // namespace millrace::scheduler
