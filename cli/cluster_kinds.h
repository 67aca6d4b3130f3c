// The cluster kinds `millrace run --cluster` offers, in the order they are listed. Adding a
// kind is a folder of cluster_adapter/ with its ClusterKind (cluster_adapter/realtime/cluster_kind.h)
// and one line in cluster_kinds.cc.
#pragma once

#include <memory>

#include "cluster_adapter/kubernetes/worker_pool/sweep_exchange.h"
#include "cluster_adapter/realtime/cluster_kind.h"

namespace millrace::cli {

cluster_adapter::ClusterKinds run_cluster_kinds();
// The kinds a sweep fans out on (compare, plan: cli/sweep_fanout.h): Kubernetes, its worker pool
// serving `sweep`.
cluster_adapter::ClusterKinds sweep_cluster_kinds(std::shared_ptr<cluster_adapter::SweepExchange> sweep);
// The checks of the kinds' option values, in the CLI's vocabulary (cli/option_checks.h).
cluster_adapter::OptionChecks cluster_option_checks();

}  // namespace millrace::cli
