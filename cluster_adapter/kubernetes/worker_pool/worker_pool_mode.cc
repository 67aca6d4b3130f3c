#include "cluster_adapter/kubernetes/worker_pool/worker_pool_mode.h"

#include <iostream>
#include <utility>

#include "cluster_adapter/kubernetes/worker_pool/worker_pool_cluster.h"
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_status.h"
#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

class WorkerPoolRun : public KubernetesRunBase<WorkerPoolCluster> {
 public:
  WorkerPoolRun(const KubernetesSession& session, WorkerPoolOptions options)
      : KubernetesRunBase(session, std::move(options)) {
    where_ = "the Indexed Job " + pool_job_name(session.run_label) + " (" + std::to_string(session.common.workers) +
             " worker pods) in namespace " + config_.namespace_name + " at " + config_.server +
             ", its workers leasing ranges from " + cluster_.lease_url();
  }
  std::string trouble() const override {
    WorkerPoolStatus status = cluster_.status();
    std::string api = api_trouble(status.api, clock_.now(), patience_);
    return api.empty() ? status.trouble : api;
  }
  // The run over, workers are told to exit, else to wait for a resume; the pool's Job is deleted.
  void flush(bool run_over) override {
    static bool told_non_indexed = false;  // once a process: a fanned-out plan runs a pool per batch
    if (cluster_.status().completion_mode == "NonIndexed" && !std::exchange(told_non_indexed, true)) {
      std::cerr << "millrace: the API server dropped the pool Job's completionMode (no Indexed Jobs before "
                   "Kubernetes 1.21): it ran as a Job of " << cluster_.capacity()
                << " completions, its pods without a completion index\n";
    }
    if (!cluster_.shut_down(run_over, std::min(kFlushWait, patience_))) {
      std::cerr << "millrace: the delete of the worker pool Job did not reach the Kubernetes API; a --resume of "
                   "the run takes its workers back\n";
    }
    tell_replaced(cluster_.status().lost);  // after the flush: every delete sent has its answer
  }

 private:
  // The lost workers whose pods were deleted so that the Job made new ones, and those whose
  // delete the API server refused.
  static void tell_replaced(const std::vector<LostWorker>& lost) {
    std::string deleted;
    int count = 0;
    for (const LostWorker& worker : lost) {
      if (worker.state == "refused") {
        std::cerr << "millrace: the pod " << worker.pod << " of a lost worker (" << worker.why
                  << ") was not deleted, so its Job made no new worker: " << worker.error << "\n";
      } else if (worker.state == "deleted") {
        deleted += (count++ ? ", " : "") + worker.pod + " (" + worker.why + ")";
      }
    }
    if (count > 0) {
      std::cerr << "millrace: replaced " << count << (count == 1 ? " lost pool worker" : " lost pool workers")
                << " (pods deleted so that the Job makes new ones): " << deleted << "\n";
    }
  }
};

}  // namespace

void WorkerPoolMode::add_options(CLI::App& command, const OptionChecks& checks) {
  command.add_option("--lease-address", lease_address_,
                     "worker-pool: address the lease API listens on, one the pods reach (0.0.0.0: every interface)");
  command.add_option("--lease-port", lease_port_, "worker-pool: port of the lease API (0: any free port)")
      ->default_val(8642)
      ->transform(checks.tcp_port());
  command.add_option("--lease-url", lease_url_,
                     "worker-pool: URL the pods reach the lease API at (default http://HOSTNAME:PORT)");
  command.add_option("--lease-duration", lease_duration_s_,
                     "worker-pool: seconds a lease lasts without a heartbeat before its range goes back to the queue")
      ->default_val(60)
      ->transform(checks.seconds(checks.max_duration));
  command.add_option("--heartbeat", heartbeat_s_, "worker-pool: seconds between the workers' heartbeats")
      ->default_val(20)
      ->transform(checks.seconds(checks.max_duration));
}

// Checked before anything is recorded.
void WorkerPoolMode::check(const KubernetesSettings& k, RunCommon& common) {
  const std::string input = "--mode worker-pool";
  if (common.policy.empty()) common.policy = "fixed-pool";
  if (common.policy != "fixed-pool") {
    throw data::Error(input, "runs a fixed pool of --workers pods: --policy must be fixed-pool, not " + common.policy);
  }
  if (k.active_deadline_s > 0) {
    throw data::Error(input, "--active-deadline is per attempt's Job; pool workers hold leases that expire "
                             "unless extended (--lease-duration)");
  }
  if (lease_address_.empty()) {
    throw data::Error(input, "needs --lease-address: where the lease API listens, an address the pods reach "
                             "(0.0.0.0 for every interface)");
  }
  if (lease_duration_s_ <= 0 || heartbeat_s_ <= 0 || heartbeat_s_ >= lease_duration_s_) {
    throw data::Error(input, "needs 0 < --heartbeat < --lease-duration");
  }
  JobTemplate::parse(k.job_template.dump(), k.job_template_path).render_pool("check", "default", common.workers,
                                                                             "http://check");
}

void WorkerPoolMode::save(nlohmann::json& p) const {
  p["lease_address"] = lease_address_;
  p["lease_port"] = lease_port_;
  p["lease_url"] = lease_url_;
  p["lease_duration_us"] = data::micros_from_seconds(lease_duration_s_);
  p["heartbeat_us"] = data::micros_from_seconds(heartbeat_s_);
}

void WorkerPoolMode::load(const nlohmann::json& p) {
  // Runs recorded before these options existed get their defaults.
  lease_address_ = p.value("lease_address", lease_address_);
  lease_port_ = p.value("lease_port", lease_port_);
  lease_url_ = p.value("lease_url", lease_url_);
  lease_duration_s_ = seconds_at(p, "lease_duration_us", lease_duration_s_);
  heartbeat_s_ = seconds_at(p, "heartbeat_us", heartbeat_s_);
}

std::unique_ptr<RunCluster> WorkerPoolMode::open(const KubernetesSession& session) {
  WorkerPoolOptions options;
  options.run = session.run_label;
  options.workers = session.common.workers;
  options.lease_host = lease_address_;
  options.lease_port = lease_port_;
  options.lease_url = lease_url_;
  options.lease.duration = data::micros_from_seconds(lease_duration_s_);
  options.lease.heartbeat = data::micros_from_seconds(heartbeat_s_);
  options.sweep = sweep_;
  options.unschedulable_after = data::micros_from_seconds(session.settings.unschedulable_after_s);
  return std::make_unique<WorkerPoolRun>(session, std::move(options));
}

}  // namespace millrace::cluster_adapter
