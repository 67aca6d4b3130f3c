// The figures GET /status gives beyond the scheduler's report, for the live page (served by the
// status server) and for scripts: the progress counts as the page shows them, the ETA with its
// band from the cost model's noise, each worker's recent attempts, and the log files of each
// failed item's last attempt. Computed here, once, so the page only displays them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/realtime/remaining_work.h"
#include "scheduler/status_report.h"

namespace millrace::cluster_adapter {

// The files holding an attempt's output (empty: the cluster keeps none on this machine).
using AttemptLogs = std::function<std::vector<std::string>(const std::string& item_id, int attempt)>;

struct LiveFigures {
  std::optional<EtaBand> eta;            // none: nothing predicted (no --model)
  int slots = 1;                         // attempts the ETA spreads the work over
  data::Micros remaining_predicted = 0;
  nlohmann::json recent_attempts = nlohmann::json::array();  // AttemptTimeline::to_json()
  nlohmann::json prediction = nullptr;   // the run's predicted makespan (data/kept_prediction.h's to_json)
};

// Adds to `document` (the scheduler's report as JSON):
//   "progress": {"total", "done" (settled), "succeeded", "failed" (given up), "in_flight", "remaining"}
//   "eta": {"slots", "remaining_predicted_us", "expected_us", "p10_us", "p90_us"} (the last three
//          null when unknown)
//   "recent_attempts": the timeline, and "logs" to each entry of "jobs_failed";
//   "prediction": the makespan the run was predicted to take ({"source", "makespan_p10_us",
//          "makespan_p50_us", "makespan_p90_us"}), null without one.
void add_live_figures(nlohmann::json& document, const scheduler::StatusReport& status, const LiveFigures& figures,
                      const AttemptLogs& logs);

}  // namespace millrace::cluster_adapter
