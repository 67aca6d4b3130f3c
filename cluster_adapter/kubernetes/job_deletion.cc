#include "cluster_adapter/kubernetes/job_deletion.h"

#include <nlohmann/json.hpp>

namespace millrace::cluster_adapter {

void delete_job_in_background(const KubeClient& client, const std::string& name, ApiHealth& health,
                              std::stop_token stop) {
  auto on_retry = [&health](const KubeApiError& error, data::Micros) { health.failed("requests", error.what()); };
  nlohmann::json options = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}};
  try {
    // Either answer is fine: a Status (deleted) or the Job itself, still there with a
    // finalizer until its pods are gone; the watch then reports it DELETED.
    client.call("DELETE", client.jobs_path() + "/" + name + "?propagationPolicy=Background", options, stop, on_retry);
    health.answered("requests");
  } catch (const KubeApiError& error) {
    if (error.reason() == "Stopped") throw;
    if (error.status() == 404) {
      health.answered("requests");  // already gone
    } else {
      health.rejected("requests", error.what());
    }
  }
}

}  // namespace millrace::cluster_adapter
