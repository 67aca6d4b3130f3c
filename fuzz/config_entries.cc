// The fuzz entry points of configuration files and request bodies (entry_points.h).
#include <string>

#include "cluster_adapter/kubernetes/job_template.h"
#include "cluster_adapter/kubernetes/kube_config.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_request.h"
#include "data/cost_model.h"
#include "data/error.h"
#include "fuzz/entry_points.h"

namespace millrace::fuzz {

void cost_model_json(std::string_view input, const InputFolder& folder) {
  const data::CostModel model = data::CostModel::load(folder.write("model.json", input));
  const data::Range span = model.span();
  (void)model.predict(span);
  (void)model.furthest_end(span.first, model.cost(span) / 2, span.end());
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

}  // namespace millrace::fuzz
