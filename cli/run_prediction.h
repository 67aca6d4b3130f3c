// The makespan a real run started with a cost model should take, predicted as it starts: the
// run's own partition, worker count, queue order and policy simulated for a number of replicas,
// each drawing the ranges' durations from the model's noise, on the model file's fitted cluster
// where it has one. The run keeps it in its parameters ("predicted"), so `show` and the end of
// the run set the makespan against its p10-p90 band, as a run carrying out a stored plan does.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/records.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/work_queue.h"
#include "sim/comparison.h"

namespace millrace::cli {

struct RunShape {
  sim::ListedPartition partition;  // the ranges as the run hands them out (plan order)
  int workers = 1;
  scheduler::QueueOrder order = scheduler::QueueOrder::kPlan;
  std::string policy;
  scheduler::AutoscaleSettings autoscale;
};

constexpr int kPredictionReplicas = 20;

// {"replicas", "makespan_mean_us", "makespan_p10_us", "makespan_p50_us", "makespan_p90_us",
// "cluster"}: the simulated makespans and where the cluster's values came from; null for a run
// without ranges. Throws
// data::Error naming the model file for a cluster section that cannot be read.
nlohmann::json predict_run_makespan(const RunShape& run, const data::CostModel& model, const std::string& model_path);

// The ranges of items handed out from a queue in this order (as they run, overlap included), as
// a partition predict_run_makespan takes: a run planned from a Redis queue (push, watch).
sim::ListedPartition queue_partition(const std::vector<data::WorkItem>& items_in_queue_order, const std::string& name);

// What a run recorded from a queue with a model keeps in its parameters: "noise" (each range's
// p10-p90 band) and, given the pool's size (workers > 0), "predicted": the makespan of the items,
// taken in queue order by that many workers.
void add_model_parameters(nlohmann::json& parameters, const std::vector<data::WorkItem>& items_in_queue_order,
                          const data::CostModel& model, const std::string& model_path, int workers);

}  // namespace millrace::cli
