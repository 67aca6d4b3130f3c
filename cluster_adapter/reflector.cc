#include "cluster_adapter/reflector.h"

#include <chrono>

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
        json list = client_.call("GET", collection_ + "?labelSelector=" + KubeClient::query_escape(selector_),
                                 std::nullopt, stop, on_retry);
        resource_version = list["metadata"].value("resourceVersion", "");
        std::vector<json> items;
        for (auto& item : list.value("items", json::array())) items.push_back(std::move(item));
        ++lists_;
        handlers_.on_trouble("");
        handlers_.on_list(std::move(items));
        need_list = false;
      }
      need_list = watch(resource_version, stop, backoff);
    } catch (const KubeApiError& error) {
      if (stop.stop_requested()) return;
      handlers_.on_trouble(error.what());
      need_list = need_list || error.status() == 410;
      if (!sleep_unless_stopped(backoff.next_delay(error.retry_after()), stop)) return;
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
  int status = client_.stream(path, [&](std::string_view line) {
    json event = json::parse(line, nullptr, false);
    if (!event.is_object()) return;
    std::string type = event.value("type", "");
    const json& object = event["object"];
    if (type == "ERROR") {
      gone = object.value("code", 0) == 410;
      if (!gone) stream_error = object.value("message", "watch error");
      return;
    }
    if (object.is_object() && object.contains("metadata")) {
      resource_version = object["metadata"].value("resourceVersion", resource_version);
    }
    if (type == "BOOKMARK") return;
    ++delivered;
    handlers_.on_event(type, object);
  }, stop, &error_body, [this] { handlers_.on_trouble(""); });
  if (status == -1) return false;
  if (status == 410 || gone) return true;
  if (status != 200) throw client_.error_from(path, HttpResponse{status, error_body, std::nullopt});
  if (!stream_error.empty()) throw KubeApiError(client_.config().server + path, 200, "", stream_error);
  if (delivered > 0 || std::chrono::steady_clock::now() - opened >= std::chrono::seconds(1)) {
    backoff.reset();
  } else {
    sleep_unless_stopped(backoff.next_delay(), stop);
  }
  return false;
}

}  // namespace millrace::cluster_adapter
