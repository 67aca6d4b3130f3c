// Deleting a Job of a run the way every part of millrace does it: propagationPolicy Background
// (its pods go too, none is orphaned), retried with backoff while the API fails, a Job already
// gone taken as done, and each failure told to the run's ApiHealth under "requests".
#pragma once

#include <stop_token>
#include <string>

#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/realtime/api_health.h"

namespace millrace::cluster_adapter {

// Deletes the Job `name` of the client's namespace. Throws only KubeApiError "Stopped" when
// `stop` is requested.
void delete_job_in_background(const KubeClient& client, const std::string& name, ApiHealth& health,
                              std::stop_token stop);

}  // namespace millrace::cluster_adapter
