#include "cluster_adapter/kubernetes/worker_pool/worker_pool_status.h"

#include <algorithm>

namespace millrace::cluster_adapter {

nlohmann::json to_json(const WorkerPoolStatus& status, data::Micros now) {
  nlohmann::json leases = nlohmann::json::array();
  for (const Lease& lease : status.leases.leases) {
    leases.push_back({{"id", lease.id}, {"worker", lease.worker}, {"item", lease.submission.item_id()},
                      {"attempt", lease.submission.attempt}, {"held_for_us", now - lease.granted},
                      {"expires_in_us", lease.expires - now}});
  }
  nlohmann::json unschedulable = nlohmann::json::array();
  for (const PendingPod& pod : status.unschedulable) {
    unschedulable.push_back({{"pod", pod.pod}, {"index", pod.index}, {"pending_since_us", pod.pending_since},
                             {"pending_for_us", now - pod.pending_since}, {"reason", pod.reason}});
  }
  nlohmann::json lost = nlohmann::json::array();
  for (const LostWorker& worker : status.lost) {
    lost.push_back({{"worker", worker.worker}, {"lost_at_us", worker.lost_at}, {"why", worker.why},
                    {"state", worker.state}, {"pod", worker.pod}, {"error", worker.error}});
  }
  return {{"kind", "kubernetes"},
          {"mode", "worker-pool"},
          {"api", to_json(status.api, now)},
          {"job", {{"name", status.job}, {"state", status.job_state}, {"completion_mode", status.completion_mode}}},
          {"lease_url", status.lease_url},
          {"workers", status.workers},
          {"pods", status.pods},
          {"unschedulable", unschedulable},
          {"leases", leases},
          {"offered", status.leases.offered},
          {"workers_waiting", status.leases.workers_waiting},
          {"workers_released", status.leases.workers_released},
          {"workers_lost", lost},
          {"leases_expired", status.leases.expired},
          {"requests_pending", status.requests_pending},
          {"trouble", status.trouble}};
}

void write_metrics(PrometheusWriter& out, const WorkerPoolStatus& status, data::Micros now) {
  write_metrics(out, status.api, now);
  out.gauge("millrace_pool_workers", "Worker pods of the pool (the Indexed Job's completions).", status.workers);
  out.family("millrace_pool_pods", "gauge", "The pool's pods by phase.");
  for (const auto& [phase, count] : status.pods) out.sample("millrace_pool_pods", count, {{"phase", phase}});
  out.gauge("millrace_pool_pods_unschedulable", "Pool pods waiting for a node longer than the unschedulable time.",
            static_cast<std::int64_t>(status.unschedulable.size()));
  out.gauge("millrace_pool_leases_held", "Attempts leased to a worker now.",
            static_cast<std::int64_t>(status.leases.leases.size()));
  out.gauge("millrace_pool_attempts_offered", "Attempts waiting for a worker to lease them.", status.leases.offered);
  out.gauge("millrace_pool_workers_waiting", "Workers waiting for work now.", status.leases.workers_waiting);
  out.family("millrace_pool_leases_expired_total", "counter", "Leases that expired (their attempt failed).");
  out.sample("millrace_pool_leases_expired_total", status.leases.expired);
  out.family("millrace_pool_workers_replaced_total", "counter",
             "Pool pods deleted so that their Job makes new ones (their worker lost: its lease expired).");
  out.sample("millrace_pool_workers_replaced_total",
             static_cast<std::int64_t>(std::count_if(status.lost.begin(), status.lost.end(),
                                                     [](const LostWorker& w) { return w.state == "deleted"; })));
}

}  // namespace millrace::cluster_adapter
