#include "cli/cluster_kinds.h"

#include "cluster_adapter/kubernetes/kubernetes_kind.h"
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_mode.h"
#include "cluster_adapter/local/local_kind.h"
#include "cli/option_checks.h"

namespace millrace::cli {

namespace {

std::vector<std::unique_ptr<cluster_adapter::KubernetesMode>> kubernetes_modes(
    std::shared_ptr<cluster_adapter::SweepExchange> sweep = nullptr) {
  std::vector<std::unique_ptr<cluster_adapter::KubernetesMode>> modes;
  modes.push_back(std::make_unique<cluster_adapter::JobPerItemMode>());
  modes.push_back(std::make_unique<cluster_adapter::WorkerPoolMode>(std::move(sweep)));
  return modes;
}

}  // namespace

cluster_adapter::ClusterKinds run_cluster_kinds() {
  cluster_adapter::ClusterKinds kinds;
  kinds.add(std::make_unique<cluster_adapter::LocalKind>());
  kinds.add(std::make_unique<cluster_adapter::KubernetesKind>(kubernetes_modes()));
  return kinds;
}

cluster_adapter::ClusterKinds sweep_cluster_kinds(std::shared_ptr<cluster_adapter::SweepExchange> sweep) {
  cluster_adapter::ClusterKinds kinds;
  kinds.add(std::make_unique<cluster_adapter::KubernetesKind>(kubernetes_modes(std::move(sweep))));
  return kinds;
}

cluster_adapter::OptionChecks cluster_option_checks() {
  return {[](std::int64_t min, std::int64_t max) { return whole_number(min, max); },
          [](data::Micros max) { return seconds(max); }, [](data::Micros max) { return whole_seconds(max); },
          [] { return tcp_port(); }, data::kMaxDuration};
}

}  // namespace millrace::cli
