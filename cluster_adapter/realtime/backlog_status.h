// What a live run's store backlog (store_backlog.h) shows a watcher, so that records kept in
// memory behind another process's write lock are seen in GET /status and GET /metrics, not only
// on stderr: how many finished attempts are not in the store yet, how long the oldest write has
// waited, and the store's last error (already redacted).
#pragma once

#include <nlohmann/json.hpp>

#include "cluster_adapter/http/prometheus.h"
#include "cluster_adapter/realtime/store_backlog.h"

namespace millrace::cluster_adapter {

// {"unwritten_attempts", "queued_writes", "oldest_queued_s", "last_error" (null when none)}.
nlohmann::json to_json(const BacklogState& state);
// Gauges millrace_store_unwritten_attempts, millrace_store_queued_writes and
// millrace_store_oldest_queued_seconds; millrace_store_last_error_info{error="..."} 1 once the
// store was busy.
void write_metrics(PrometheusWriter& out, const BacklogState& state);

}  // namespace millrace::cluster_adapter
