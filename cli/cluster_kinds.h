// The cluster kinds `millrace run --cluster` offers, in the order they are listed. Adding a
// kind is a folder of cluster_adapter/ with its ClusterKind (cluster_adapter/realtime/cluster_kind.h)
// and one line in cluster_kinds.cc.
#pragma once

#include "cluster_adapter/realtime/cluster_kind.h"

namespace millrace::cli {

cluster_adapter::ClusterKinds run_cluster_kinds();

}  // namespace millrace::cli
