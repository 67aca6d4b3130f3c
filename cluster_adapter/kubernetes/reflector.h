// Keeps up with one collection of the Kubernetes API (e.g. a run's Jobs by label selector) the
// way client-go's reflector does: list, then watch from the list's resourceVersion; on a
// dropped or ended stream, watch again from the last resourceVersion seen; on 410 Gone (as an
// HTTP status or as an ERROR event inside a 200 stream), list again. It runs on its own thread
// and never gives up: failures are retried with backoff and reported to `on_trouble` (an empty
// problem means the API answers again). Handlers are called on the reflector's thread.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/realtime/backoff.h"

namespace millrace::cluster_adapter {

struct ReflectorHandlers {
  std::function<void(std::vector<nlohmann::json> items)> on_list;  // the whole state after a list
  std::function<void(const std::string& type, const nlohmann::json& object)> on_event;
  std::function<void(const std::string& problem)> on_trouble;
};

class Reflector {
 public:
  // `collection` is the API path (/apis/batch/v1/namespaces/NS/jobs).
  Reflector(const KubeClient& client, std::string collection, std::string label_selector,
            ReflectorHandlers handlers, BackoffPolicy backoff, int watch_timeout_seconds = 300);
  ~Reflector();  // stops the thread
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  int lists() const { return lists_; }
  int watches() const { return watches_; }

 private:
  void run(std::stop_token stop);
  // Watches from `resource_version` until the stream ends; true when a re-list is needed.
  bool watch(std::string& resource_version, std::stop_token stop, Backoff& backoff);

  const KubeClient& client_;
  std::string collection_;
  std::string selector_;
  ReflectorHandlers handlers_;
  BackoffPolicy backoff_;
  int watch_timeout_seconds_;
  std::atomic<int> lists_{0};
  std::atomic<int> watches_{0};
  std::jthread thread_;
};

}  // namespace millrace::cluster_adapter
