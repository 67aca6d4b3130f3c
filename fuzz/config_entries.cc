// The fuzz entry points of configuration files and request bodies (entry_points.h).
#include <optional>
#include <string>
#include <vector>

#include "cluster_adapter/kubernetes/job_template.h"
#include "cluster_adapter/kubernetes/kube_config.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_request.h"
#include "data/checked_numbers.h"
#include "data/cost_model.h"
#include "data/error.h"
#include "data/model_file.h"
#include "fuzz/entry_points.h"
#include "sim/replica_result.h"
#include "sim/sweep_shards.h"

namespace millrace::fuzz {

namespace {

// Every delay drawn from an accepted cluster lies on the simulator's clock: [0, kMaxMicros].
void check_draws(const data::TypedDelays& delays, const std::string& part) {
  if (!delays.identified()) return;
  std::vector<std::string> types = {""};
  for (const auto& [type, quantiles] : delays.by_type) types.push_back(type);
  for (const std::string& type : types) {
    for (const double u : {0.0, 0.5, 0.99, 0.999999}) {
      const data::Micros drawn = delays.draw(type, u);
      if (drawn < 0 || drawn > data::kMaxMicros) {
        throw ContractViolation("cluster." + part + " drew " + std::to_string(drawn) + " us, off the simulator's clock");
      }
    }
  }
}

}  // namespace

void cost_model_json(std::string_view input, const InputFolder& folder) {
  const std::string path = folder.write("model.json", input);
  run_all({[&] {
             const data::CostModel model = data::CostModel::load(path);
             const data::Range span = model.span();
             (void)model.predict(span);
             (void)model.furthest_end(span.first, model.cost(span) / 2, span.end());
           },
           [&] {
             const std::optional<data::ClusterModel> cluster = data::load_cluster_model(path);
             if (!cluster) return;
             check_draws(cluster->placement, "placement_residual");
             check_draws(cluster->startup, "startup");
             check_draws(cluster->worker_gap, "worker_gap");
             check_draws(cluster->job_overhead, "job_overhead");
             check_draws(cluster->provisioning, "provisioning");
           }});
}

void kubeconfig(std::string_view input, const InputFolder& folder) {
  (void)cluster_adapter::load_kubeconfig(folder.write("kubeconfig", input));
}

void job_template(std::string_view input, const InputFolder&) {
  static const data::WorkItem range_item = [] {
    data::WorkItem item;
    item.id = "6463/16320";
    item.range = data::Range{-9856, 16320};
    return item;
  }();
  static const data::WorkItem payload_item = [] {
    data::WorkItem item;
    item.id = "job-7";
    item.payload = "--size 4";
    item.type = "batch";
    return item;
  }();
  const auto parsed = cluster_adapter::JobTemplate::parse(std::string(input), "fuzz-template.json");
  static const scheduler::PlannedWork range_plan({range_item}, "fuzz plan");
  static const scheduler::PlannedWork payload_plan({payload_item}, "fuzz plan");
  scheduler::Submission for_range, for_payload;
  for_range.plan = &range_plan;
  for_range.attempt = 2;
  for_payload.plan = &payload_plan;
  run_all({[&] { (void)parsed.render("run-1", "default", for_range, 600); },
           [&] { (void)parsed.render("run-1", "default", for_payload, std::nullopt); },
           [&] { (void)parsed.render_pool("run-1", "default", 8, "http://10.0.0.1:8080"); }});
}

void lease_request(std::string_view input, const InputFolder&) {
  const std::string body(input);
  run_all({[&] {
             if (cluster_adapter::parse_lease_request(body).worker.empty()) {
               throw ContractViolation("a lease request accepted without a worker");
             }
           },
           [&] {
             const cluster_adapter::CompletionReport report = cluster_adapter::parse_completion_report(body);
             if (report.work_time && *report.work_time < 0) {
               throw ContractViolation("a completion accepted with a negative work time");
             }
           }});
}

void sweep_shard(std::string_view input, const InputFolder&) {
  const std::string body(input);
  run_all({[&] {
             const cluster_adapter::CompletionReport report = cluster_adapter::parse_completion_report(body);
             if (!report.results) return;
             const std::vector<sim::ReplicaResult> results =
                 sim::replica_results_from_json(*report.results, report.results->size(), "results");
             const nlohmann::json again = sim::to_json(results);
             if (sim::to_json(sim::replica_results_from_json(again, results.size(), "results")) != again) {
               throw ContractViolation("shard results accepted that do not read back as written");
             }
           },
           [&] {
             const sim::ShardOrder order = sim::shard_order_from_payload(body, "payload");
             const std::string payload = sim::payload_of(order);
             if (sim::payload_of(sim::shard_order_from_payload(payload, "payload")) != payload) {
               throw ContractViolation("a shard's payload accepted that does not read back as written");
             }
           }});
}

}  // namespace millrace::fuzz
