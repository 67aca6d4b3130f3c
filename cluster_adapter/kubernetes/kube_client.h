// A small Kubernetes REST client over libcurl: TLS with the configured CA, a bearer token or a
// client certificate, JSON bodies (nlohmann/json), failures as KubeApiError carrying the HTTP
// status and the server's Status reason/message, retries with exponential backoff on 429 (its
// Retry-After honoured), 5xx and connection errors, and a streaming GET for watches that hands
// over one line (one JSON watch event) at a time and stops promptly when asked.
#pragma once

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/kube_api_error.h"
#include "cluster_adapter/kubernetes/kube_config.h"
#include "cluster_adapter/realtime/backoff.h"

namespace millrace::cluster_adapter {

struct HttpResponse {
  int status = 0;
  std::string body;
  std::optional<data::Micros> retry_after;
};

class KubeClient {
 public:
  // Told about each retryable failure before the client waits `delay` and tries again.
  using RetryObserver = std::function<void(const KubeApiError& error, data::Micros delay)>;

  explicit KubeClient(KubeConfig config, BackoffPolicy backoff = {},
                      data::Micros request_timeout = 30 * data::kMicrosPerSecond);

  const KubeConfig& config() const { return config_; }
  // The collection paths of the configured namespace's batch/v1 Jobs and v1 pods.
  std::string jobs_path() const { return "/apis/batch/v1/namespaces/" + config_.namespace_name + "/jobs"; }
  std::string pods_path() const { return "/api/v1/namespaces/" + config_.namespace_name + "/pods"; }

  // One HTTP exchange, no retry. Throws KubeApiError with status 0 when no response came.
  HttpResponse send(const std::string& method, const std::string& path,
                    const std::string& body = "") const;

  // A JSON call retried with backoff while the failure is retryable, until it succeeds, the
  // backoff policy gives up (the last error is thrown) or `stop` is requested (a KubeApiError
  // with status 0 and reason "Stopped" is thrown). A non-retryable status throws at once.
  // A 2xx answer that is not a JSON object, or that `check` refuses (by throwing a KubeApiError
  // with KubeApiError::kMalformedReason), is a malformed answer, retried like an outage.
  nlohmann::json call(const std::string& method, const std::string& path,
                      const std::optional<nlohmann::json>& body = std::nullopt,
                      std::stop_token stop = {}, const RetryObserver& on_retry = {},
                      const std::function<void(const nlohmann::json&)>& check = {}) const;

  // GET of a collection (`path` with its query) as call() does it, the answer checked to be a
  // list of API objects (kube_list_items); returns the items and sets `resource_version`.
  std::vector<nlohmann::json> list(const std::string& path, std::string& resource_version, std::stop_token stop = {},
                                   const RetryObserver& on_retry = {}) const;

  // A streaming GET (a watch): `on_line` gets each complete line of a 200 response as it
  // arrives. Returns when the server ends the stream or the connection drops (the status is
  // returned; a non-200 response's body goes to `error_body`), or soon after `stop` is requested
  // (returns -1). `on_open` is called once a 200 response has begun. Throws KubeApiError with
  // status 0 when no connection could be made.
  int stream(const std::string& path, const std::function<void(std::string_view line)>& on_line,
             std::stop_token stop, std::string* error_body = nullptr,
             const std::function<void()>& on_open = {}) const;

  // Turns a non-2xx response into the KubeApiError the server's Status object describes.
  KubeApiError error_from(const std::string& path, const HttpResponse& response) const;

  // Percent-encodes a query parameter value (label selectors contain '=' and ',').
  static std::string query_escape(std::string_view value);

 private:
  KubeConfig config_;
  BackoffPolicy backoff_;
  data::Micros request_timeout_;
};

// Waits `delay` or until `stop` is requested; returns false when stopped.
bool sleep_unless_stopped(data::Micros delay, std::stop_token stop);

}  // namespace millrace::cluster_adapter
