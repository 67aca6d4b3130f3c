// `millrace run --cluster local`, the embedded default: every attempt a process tree of this
// machine (local_process_cluster.h), its command from --command, its output in a log folder,
// packed by the items' requests into the machine's CPU and memory or --local-capacity.
#pragma once

#include <string>

#include "cluster_adapter/local/local_process_cluster.h"
#include "cluster_adapter/realtime/cluster_kind.h"

namespace millrace::cluster_adapter {

class LocalKind : public ClusterKind {
 public:
  std::string name() const override { return "local"; }
  std::string default_policy() const override { return "fixed-pool"; }
  void add_options(CLI::App& command, const OptionChecks& checks) override;
  void check(RunCommon& common) override;
  void check_plan(const std::vector<data::WorkItem>& items) const override;
  std::vector<std::string> resume_options() const override { return {"--command"}; }
  void save(nlohmann::json& parameters) const override;
  void load(const nlohmann::json& parameters) override;
  std::unique_ptr<RunCluster> open(const ClusterSession& session) override;

 private:
  LocalProcessOptions process_;
  double timeout_s_ = 0;
  double kill_grace_s_ = 5;
  std::string log_dir_;  // empty: STORE.logs/run-ID
  std::string capacity_;  // --local-capacity; empty: this machine's (machine_capacity())
};

}  // namespace millrace::cluster_adapter
