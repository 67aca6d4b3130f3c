// What a run knows about the health of its cluster's API, for the operator: every part that
// calls the API (watch streams, the request thread) reports each failed call it is about to
// retry and each answer, under a source name ("watch jobs", "requests"). The API counts as
// unreachable while any source is failing; the status says since when, how many calls failed
// in a row and in all, and keeps the last error (also of calls refused for good, which are not
// retried) after the API answers again. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/http/prometheus.h"
#include "data/time.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

// A source whose calls fail now.
struct FailingSource {
  std::string source;
  std::string problem;          // its latest error
  data::Micros since = 0;       // its first failure in a row
  int failures = 0;             // failed calls in a row
};

struct ApiHealthStatus {
  bool reachable = true;
  std::vector<FailingSource> failing;   // by source name
  data::Micros unreachable_since = 0;   // first failure of the current outage (when unreachable)
  int consecutive_failures = 0;         // failed calls since the API last answered every source
  std::int64_t retries = 0;             // failed calls retried over the whole session
  std::int64_t rejections = 0;          // calls the API refused for good (403, 422, ...)
  std::string last_error;               // the latest failure, kept after the API recovers
  data::Micros last_error_at = 0;
};

class ApiHealth {
 public:
  explicit ApiHealth(const scheduler::Clock& clock) : clock_(clock) {}

  // A call of `source` failed with `problem` and will be retried.
  void failed(const std::string& source, const std::string& problem);
  // A call of `source` got an answer (the API is reachable for it again).
  void answered(const std::string& source);
  // A call of `source` was answered with a refusal not worth retrying (403, 422): the API is
  // reachable, but the operator should see the error.
  void rejected(const std::string& source, const std::string& problem);
  // failed() for a non-empty problem, answered() for an empty one (the reflectors' convention).
  void report(const std::string& source, const std::string& problem);

  ApiHealthStatus status() const;

 private:
  const scheduler::Clock& clock_;
  mutable std::mutex mutex_;
  std::map<std::string, FailingSource> failing_;
  ApiHealthStatus totals_;  // everything but `reachable` and `failing`
};

// The "api" part of a cluster's status JSON; `now` turns times since into durations.
nlohmann::json to_json(const ApiHealthStatus& status, data::Micros now);
// millrace_kubernetes_api_* metrics.
void write_metrics(PrometheusWriter& out, const ApiHealthStatus& status, data::Micros now);

}  // namespace millrace::cluster_adapter
