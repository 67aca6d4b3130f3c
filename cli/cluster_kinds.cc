#include "cli/cluster_kinds.h"

#include "cluster_adapter/kubernetes/kubernetes_kind.h"
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_mode.h"
#include "cluster_adapter/local/local_kind.h"

namespace millrace::cli {

namespace {

std::vector<std::unique_ptr<cluster_adapter::KubernetesMode>> kubernetes_modes() {
  std::vector<std::unique_ptr<cluster_adapter::KubernetesMode>> modes;
  modes.push_back(std::make_unique<cluster_adapter::JobPerItemMode>());
  modes.push_back(std::make_unique<cluster_adapter::WorkerPoolMode>());
  return modes;
}

}  // namespace

cluster_adapter::ClusterKinds run_cluster_kinds() {
  cluster_adapter::ClusterKinds kinds;
  kinds.add(std::make_unique<cluster_adapter::LocalKind>());
  kinds.add(std::make_unique<cluster_adapter::KubernetesKind>(kubernetes_modes()));
  return kinds;
}

}  // namespace millrace::cli
