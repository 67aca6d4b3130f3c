#include "cluster_adapter/kubernetes/kubernetes_status.h"

namespace millrace::cluster_adapter {

nlohmann::json to_json(const KubernetesClusterStatus& status, data::Micros now) {
  nlohmann::json unschedulable = nlohmann::json::array();
  for (const UnschedulableAttempt& u : status.unschedulable) {
    unschedulable.push_back({{"item", u.item}, {"attempt", u.attempt}, {"job", u.job}, {"pod", u.pod},
                             {"pending_since_us", u.waiting_since}, {"pending_for_us", now - u.waiting_since},
                             {"reason", u.reason}});
  }
  return {{"kind", "kubernetes"},
          {"mode", "job-per-item"},
          {"api", to_json(status.api, now)},
          {"in_flight", status.in_flight},
          {"held_by_cap", status.waiting},
          {"requests_pending", status.requests_pending},
          {"unschedulable", unschedulable},
          {"job_lists", status.lists},
          {"job_watches", status.watches}};
}

void write_metrics(PrometheusWriter& out, const KubernetesClusterStatus& status, data::Micros now) {
  write_metrics(out, status.api, now);
  out.gauge("millrace_kubernetes_attempts_held_by_cap", "Attempts submitted but held back by the concurrency cap.",
            status.waiting);
  out.gauge("millrace_kubernetes_requests_pending", "Job creates and deletes queued or being sent (retried).",
            status.requests_pending);
  out.gauge("millrace_kubernetes_unschedulable_attempts",
            "Attempts whose pod has waited for a node longer than the unschedulable time.",
            static_cast<std::int64_t>(status.unschedulable.size()));
  out.family("millrace_kubernetes_job_lists_total", "counter", "List calls of the run's Jobs (1 + re-lists).");
  out.sample("millrace_kubernetes_job_lists_total", status.lists);
  out.family("millrace_kubernetes_job_watches_total", "counter", "Watch streams opened on the run's Jobs.");
  out.sample("millrace_kubernetes_job_watches_total", status.watches);
}

}  // namespace millrace::cluster_adapter
