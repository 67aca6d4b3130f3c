// How a Kubernetes run's cluster state appears to the operator: the "cluster" part of GET
// /status (API reachability and what is being retried, attempts held back by the cap, requests
// not yet sent, attempts whose pod waits for a node too long) and the millrace_kubernetes_*
// metrics of GET /metrics.
#pragma once

#include <nlohmann/json.hpp>

#include "cluster_adapter/http/prometheus.h"
#include "cluster_adapter/kubernetes/kubernetes_cluster.h"

namespace millrace::cluster_adapter {

nlohmann::json to_json(const KubernetesClusterStatus& status, data::Micros now);
void write_metrics(PrometheusWriter& out, const KubernetesClusterStatus& status, data::Micros now);

}  // namespace millrace::cluster_adapter
