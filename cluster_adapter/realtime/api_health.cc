#include "cluster_adapter/realtime/api_health.h"

namespace millrace::cluster_adapter {

void ApiHealth::failed(const std::string& source, const std::string& problem) {
  data::Micros now = clock_.now();
  std::lock_guard lock(mutex_);
  if (failing_.empty()) {
    totals_.unreachable_since = now;
    totals_.consecutive_failures = 0;
  }
  auto [it, first] = failing_.try_emplace(source, FailingSource{source, problem, now, 0});
  it->second.problem = problem;
  ++it->second.failures;
  ++totals_.consecutive_failures;
  ++totals_.retries;
  totals_.last_error = source + ": " + problem;
  totals_.last_error_at = now;
}

void ApiHealth::answered(const std::string& source) {
  std::lock_guard lock(mutex_);
  failing_.erase(source);
  if (failing_.empty()) {
    totals_.unreachable_since = 0;
    totals_.consecutive_failures = 0;
  }
}

void ApiHealth::rejected(const std::string& source, const std::string& problem) {
  data::Micros now = clock_.now();
  answered(source);
  std::lock_guard lock(mutex_);
  ++totals_.rejections;
  totals_.last_error = source + ": " + problem;
  totals_.last_error_at = now;
}

void ApiHealth::report(const std::string& source, const std::string& problem) {
  if (problem.empty()) {
    answered(source);
  } else {
    failed(source, problem);
  }
}

ApiHealthStatus ApiHealth::status() const {
  std::lock_guard lock(mutex_);
  ApiHealthStatus status = totals_;
  status.reachable = failing_.empty();
  for (const auto& entry : failing_) status.failing.push_back(entry.second);
  return status;
}

nlohmann::json to_json(const ApiHealthStatus& status, data::Micros now) {
  nlohmann::json retrying = nlohmann::json::array();
  for (const FailingSource& f : status.failing) {
    retrying.push_back({{"source", f.source}, {"problem", f.problem}, {"since_us", f.since},
                        {"failures_in_a_row", f.failures}});
  }
  nlohmann::json json = {{"reachable", status.reachable},
                         {"consecutive_failures", status.consecutive_failures},
                         {"retries", status.retries},
                         {"rejections", status.rejections},
                         {"retrying", retrying},
                         {"last_error", status.last_error},
                         {"last_error_at_us", status.last_error_at}};
  if (!status.reachable) {
    json["unreachable_since_us"] = status.unreachable_since;
    json["unreachable_for_us"] = now - status.unreachable_since;
  }
  return json;
}

void write_metrics(PrometheusWriter& out, const ApiHealthStatus& status, data::Micros now) {
  out.gauge("millrace_kubernetes_api_reachable", "1 while every call to the Kubernetes API gets an answer, else 0.",
            status.reachable ? 1 : 0);
  out.family("millrace_kubernetes_api_unreachable_seconds", "gauge",
             "How long the Kubernetes API has been failing (0 while reachable).");
  out.sample_seconds("millrace_kubernetes_api_unreachable_seconds",
                     status.reachable ? 0 : now - status.unreachable_since);
  out.gauge("millrace_kubernetes_api_consecutive_failures",
            "Failed Kubernetes API calls since the API last answered every caller.", status.consecutive_failures);
  out.family("millrace_kubernetes_api_retries_total", "counter", "Failed Kubernetes API calls that were retried.");
  out.sample("millrace_kubernetes_api_retries_total", status.retries);
  out.family("millrace_kubernetes_api_rejections_total", "counter",
             "Kubernetes API calls refused for good (not retried).");
  out.sample("millrace_kubernetes_api_rejections_total", status.rejections);
  out.family("millrace_kubernetes_api_failures_in_a_row", "gauge",
             "Failed calls in a row of each caller being retried now.");
  for (const FailingSource& f : status.failing) {
    out.sample("millrace_kubernetes_api_failures_in_a_row", f.failures, {{"source", f.source}});
  }
}

}  // namespace millrace::cluster_adapter
