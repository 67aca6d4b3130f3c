#include "cluster_adapter/realtime/live_status.h"

namespace millrace::cluster_adapter {

void add_live_figures(nlohmann::json& document, const scheduler::StatusReport& status, const LiveFigures& figures,
                      const AttemptLogs& logs) {
  document["progress"] = {{"total", status.num_items},
                          {"done", status.num_items - status.num_remain},
                          {"succeeded", status.num_succeeded},
                          {"failed", status.jobs_failed.size()},
                          {"in_flight", status.jobs_in_progress.size()},
                          {"remaining", status.num_remain}};
  const auto micros_or_null = [&](data::Micros EtaBand::*field) {
    return figures.eta ? nlohmann::json((*figures.eta).*field) : nlohmann::json(nullptr);
  };
  document["eta"] = {{"slots", figures.slots},
                     {"remaining_predicted_us", figures.remaining_predicted},
                     {"expected_us", micros_or_null(&EtaBand::expected)},
                     {"p10_us", micros_or_null(&EtaBand::p10)},
                     {"p90_us", micros_or_null(&EtaBand::p90)}};
  if (figures.eta) {
    // What the run has learnt of the model: its own ratio, and whether it is outside the model.
    document["eta"]["observed"] = figures.eta->observed;
    document["eta"]["run_ratio"] = figures.eta->run_ratio;
    document["eta"]["outside_model"] = figures.eta->outside_model;
    document["eta"]["note"] = figures.eta->note();
  }
  document["recent_attempts"] = figures.recent_attempts;
  document["prediction"] = figures.prediction;
  nlohmann::json& failed = document["jobs_failed"];
  for (std::size_t i = 0; i < status.jobs_failed.size() && i < failed.size(); ++i) {
    const scheduler::FailedJob& job = status.jobs_failed[i];
    failed[i]["logs"] = job.attempts > 0 ? logs(job.item, job.attempts) : std::vector<std::string>{};
  }
}

}  // namespace millrace::cluster_adapter
