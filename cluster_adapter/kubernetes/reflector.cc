#include "cluster_adapter/kubernetes/reflector.h"

#include <chrono>
#include <exception>

#include "cluster_adapter/kubernetes/json_fields.h"
#include "data/importers/json_input.h"

namespace millrace::cluster_adapter {

using nlohmann::json;

Reflector::Reflector(const KubeClient& client, std::string collection, std::string label_selector,
                     ReflectorHandlers handlers, BackoffPolicy backoff, int watch_timeout_seconds)
    : client_(client), collection_(std::move(collection)), selector_(std::move(label_selector)),
      handlers_(std::move(handlers)), backoff_(backoff), watch_timeout_seconds_(watch_timeout_seconds) {
  backoff_.max_attempts = 0;
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

Reflector::~Reflector() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void Reflector::run(std::stop_token stop) {
  Backoff backoff(backoff_);
  auto on_retry = [this](const KubeApiError& error, data::Micros) { handlers_.on_trouble(error.what()); };
  std::string resource_version;
  bool need_list = true;
  while (!stop.stop_requested()) {
    try {
      if (need_list) {
        std::string path = collection_ + "?labelSelector=" + KubeClient::query_escape(selector_);
        std::vector<json> items = client_.list(path, resource_version, stop, on_retry);
        ++lists_;
        handlers_.on_trouble("");
        handlers_.on_list(std::move(items));
        need_list = false;
      }
      need_list = watch(resource_version, stop, backoff);
    } catch (const KubeApiError& error) {
      if (stop.stop_requested()) return;
      handlers_.on_trouble(error.what());
      need_list = need_list || error.status() == 410 || error.reason() == KubeApiError::kMalformedReason;
      if (!sleep_unless_stopped(backoff.next_delay(error.retry_after()), stop)) return;
    } catch (const std::exception& error) {
      // Never out of the thread: whatever an answer made fail is reported and retried from a list.
      if (stop.stop_requested()) return;
      handlers_.on_trouble(collection_ + ": unexpected answer: " + error.what());
      need_list = true;
      if (!sleep_unless_stopped(backoff.next_delay(), stop)) return;
    }
  }
}

bool Reflector::watch(std::string& resource_version, std::stop_token stop, Backoff& backoff) {
  std::string path = collection_ + "?watch=1&allowWatchBookmarks=true&labelSelector=" +
                     KubeClient::query_escape(selector_) + "&resourceVersion=" +
                     KubeClient::query_escape(resource_version) +
                     "&timeoutSeconds=" + std::to_string(watch_timeout_seconds_);
  bool gone = false;
  std::string stream_error;
  int delivered = 0;
  std::string error_body;
  ++watches_;
  auto opened = std::chrono::steady_clock::now();
  std::string malformed;
  int status = client_.stream(path, [&](std::string_view line) {
    if (!malformed.empty()) return;
    json event = data::importers::parse_json_or_discarded(line);
    std::string type = text_field(event, "type");
    const json& object = field(event, "object");
    if (type == "ERROR") {
      gone = integer_field(object, "code") == 410;
      if (!gone) stream_error = text_field(object, "message", "watch error");
      return;
    }
    bool known = type == "ADDED" || type == "MODIFIED" || type == "DELETED" || type == "BOOKMARK";
    const json& version = field(field(object, "metadata"), "resourceVersion");
    if (!known || !object.is_object() || !version.is_string() || (type != "BOOKMARK" && !is_kube_object(object))) {
      // An event we cannot read may hide a change: the stream is dropped and the state listed again.
      malformed = "watch event is not {type, object with metadata.name and resourceVersion}: " +
                  std::string(line.substr(0, 200));
      return;
    }
    resource_version = version.get<std::string>();
    if (type == "BOOKMARK") return;
    ++delivered;
    handlers_.on_event(type, object);
  }, stop, &error_body, [this] { handlers_.on_trouble(""); });
  if (status == -1) return false;
  if (status == 410 || gone) return true;
  if (status != 200) throw client_.error_from(path, HttpResponse{status, error_body, std::nullopt});
  if (!malformed.empty()) {
    throw KubeApiError(client_.config().server + path, 200, std::string(KubeApiError::kMalformedReason), malformed);
  }
  if (!stream_error.empty()) throw KubeApiError(client_.config().server + path, 200, "", stream_error);
  if (delivered > 0 || std::chrono::steady_clock::now() - opened >= std::chrono::seconds(1)) {
    backoff.reset();
  } else {
    sleep_unless_stopped(backoff.next_delay(), stop);
  }
  return false;
}

}  // namespace millrace::cluster_adapter
