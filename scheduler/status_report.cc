#include "scheduler/status_report.h"

namespace millrace::scheduler {

nlohmann::json to_json(const StatusReport& report) {
  nlohmann::json failed = nlohmann::json::array();
  for (const FailedJob& job : report.jobs_failed) {
    failed.push_back({{"item", job.item}, {"range", job.range}, {"worker", job.worker},
                      {"attempts", job.attempts}, {"reason", job.reason}});
  }
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerStatus& w : report.workers) {
    workers.push_back({{"name", w.name}, {"state", w.busy ? "busy" : "idle"}, {"range", w.range},
                       {"busy_us", w.busy_time}, {"succeeded", w.succeeded}, {"failed", w.failed}});
  }
  return {{"at_us", report.at},
          {"policy", report.policy},
          {"target", report.target},
          {"num_items", report.num_items},
          {"num_remain", report.num_remain},
          {"num_succeeded", report.num_succeeded},
          {"run_failed", report.run_failed},
          {"jobs_failed", failed},
          {"jobs_in_progress", report.jobs_in_progress},
          {"workers", workers}};
}

}  // namespace millrace::scheduler
