#include "cli/run_prediction.h"

#include <algorithm>
#include <numeric>

#include "cli/fitted_cluster.h"

namespace millrace::cli {

nlohmann::json predict_run_makespan(const RunShape& run, const data::CostModel& model, const std::string& model_path) {
  sim::ComparisonSpec spec;
  spec.model = &model;
  const std::vector<data::Range>& tiling = run.partition.partition.ranges;
  if (tiling.empty()) return nullptr;
  spec.span = {tiling.front().first, tiling.back().end() - tiling.front().first};
  spec.partition.overlap = run.partition.partition.overlap;
  spec.listed = {run.partition};
  spec.workers = {run.workers};
  spec.orders = {run.order};
  spec.replicas = kPredictionReplicas;
  const ClusterSource cluster = cluster_source(model_path, false, false);
  spec.base.cluster.fitted = cluster.fitted;
  spec.base.scheduler.plan_name = "the run's plan";
  spec.base.scheduler.policy = run.policy;
  spec.base.scheduler.params = scheduler::policy_params(run.workers, run.autoscale);
  spec.base.scheduler.on_exhausted = scheduler::OnExhausted::kReport;
  spec.threads = 1;
  const sim::ComparisonRow row = sim::run_comparison(spec).rows.at(0);
  return {{"replicas", row.replicas},
          {"makespan_mean_us", row.makespan_mean},
          {"makespan_p10_us", row.makespan_p10},
          {"makespan_p50_us", row.makespan_p50},
          {"makespan_p90_us", row.makespan_p90},
          {"cluster", cluster.text}};
}

sim::ListedPartition queue_partition(const std::vector<data::WorkItem>& items_in_queue_order, const std::string& name) {
  sim::ListedPartition listed{name, {}, {}, {}};
  std::vector<std::size_t> ascending(items_in_queue_order.size());
  std::iota(ascending.begin(), ascending.end(), std::size_t{0});
  const auto first_unit = [&](std::size_t i) { return items_in_queue_order[i].range.value().first; };
  std::stable_sort(ascending.begin(), ascending.end(), [&](std::size_t a, std::size_t b) { return first_unit(a) < first_unit(b); });
  std::vector<std::size_t> position(ascending.size());
  for (std::size_t sorted = 0; sorted < ascending.size(); ++sorted) {
    listed.partition.ranges.push_back(*items_in_queue_order[ascending[sorted]].range);
    position[ascending[sorted]] = sorted;
  }
  listed.plan_order = position;  // queue position -> its range among the sorted ones
  return listed;
}

void add_model_parameters(nlohmann::json& parameters, const std::vector<data::WorkItem>& items_in_queue_order,
                          const data::CostModel& model, const std::string& model_path, int workers) {
  parameters["noise"] = model.noise().to_json();
  if (workers <= 0) return;
  const RunShape shape{queue_partition(items_in_queue_order, "the queue's ranges"), workers,
                       scheduler::QueueOrder::kPlan, "fixed-pool", {}};
  parameters["predicted"] = predict_run_makespan(shape, model, model_path);
}

}  // namespace millrace::cli
