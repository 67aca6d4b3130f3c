// `millrace run --cluster kubernetes --mode worker-pool`: one Indexed Job of --workers pods that
// lease the ranges from this run over HTTP (worker_pool_cluster.h), with the lease API's options.
#pragma once

#include <memory>
#include <string>

#include "cluster_adapter/kubernetes/kubernetes_kind.h"
#include "cluster_adapter/kubernetes/worker_pool/sweep_exchange.h"

namespace millrace::cluster_adapter {

class WorkerPoolMode : public KubernetesMode {
 public:
  // `sweep`: the pool serves a sweep (its bundles and results, cli/sweep_fanout.h); null: a run.
  explicit WorkerPoolMode(std::shared_ptr<SweepExchange> sweep = nullptr) : sweep_(std::move(sweep)) {}
  std::string name() const override { return "worker-pool"; }
  std::string summary() const override {
    return "one Indexed Job of worker pods (--workers; a sweep's --pool-workers) that lease work over HTTP";
  }
  void add_options(CLI::App& command, const OptionChecks& checks) override;
  void check(const KubernetesSettings& settings, RunCommon& common) override;
  void save(nlohmann::json& parameters) const override;
  void load(const nlohmann::json& parameters) override;
  std::unique_ptr<RunCluster> open(const KubernetesSession& session) override;

 private:
  std::string lease_address_;  // required (0.0.0.0 only when asked for)
  int lease_port_ = 8642;
  std::string lease_url_;      // empty: http://HOSTNAME:PORT
  double lease_duration_s_ = 60;
  double heartbeat_s_ = 20;
  std::shared_ptr<SweepExchange> sweep_;
};

}  // namespace millrace::cluster_adapter
