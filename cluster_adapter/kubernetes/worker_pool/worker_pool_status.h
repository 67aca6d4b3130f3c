// How a worker-pool run's cluster state appears to the operator: the "cluster" part of GET
// /status (API reachability and what is being retried, the pool Job's state, its pods by phase
// and those waiting too long for a node, the leases held with their worker, item and expiry,
// work waiting for a worker, the lost workers and their pods replaced) and the millrace_pool_* /
// millrace_kubernetes_api_* metrics.
#pragma once

#include <nlohmann/json.hpp>

#include "cluster_adapter/http/prometheus.h"
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_cluster.h"

namespace millrace::cluster_adapter {

nlohmann::json to_json(const WorkerPoolStatus& status, data::Micros now);
void write_metrics(PrometheusWriter& out, const WorkerPoolStatus& status, data::Micros now);

}  // namespace millrace::cluster_adapter
