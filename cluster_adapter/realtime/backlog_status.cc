#include "cluster_adapter/realtime/backlog_status.h"

namespace millrace::cluster_adapter {

nlohmann::json to_json(const BacklogState& state) {
  return nlohmann::json{{"unwritten_attempts", state.attempts},
                        {"queued_writes", state.writes},
                        {"oldest_queued_s", data::seconds_from_micros(state.oldest_age)},
                        {"last_error", state.last_error.empty() ? nlohmann::json() : nlohmann::json(state.last_error)}};
}

void write_metrics(PrometheusWriter& out, const BacklogState& state) {
  out.gauge("millrace_store_unwritten_attempts", "Finished attempts kept in memory, not yet in the trace store",
            state.attempts);
  out.gauge("millrace_store_queued_writes", "Writes to the trace store waiting in memory",
            static_cast<std::int64_t>(state.writes));
  out.family("millrace_store_oldest_queued_seconds", "gauge", "How long the oldest queued write has waited");
  out.sample_seconds("millrace_store_oldest_queued_seconds", state.oldest_age);
  if (!state.last_error.empty()) {
    out.family("millrace_store_last_error_info", "gauge", "The trace store's last busy error (redacted)");
    out.sample("millrace_store_last_error_info", 1, {{"error", state.last_error}});
  }
}

}  // namespace millrace::cluster_adapter
