#include "cluster_adapter/kubernetes/api_request_queue.h"

#include <chrono>

#include "cluster_adapter/kubernetes/kube_api_error.h"

namespace millrace::cluster_adapter {

ApiRequestQueue::ApiRequestQueue() : thread_([this](std::stop_token stop) { loop(stop); }) {}

ApiRequestQueue::~ApiRequestQueue() {
  thread_.request_stop();
  queued_.notify_all();
}

void ApiRequestQueue::push(Request request) {
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(std::move(request));
  }
  queued_.notify_one();
}

bool ApiRequestQueue::flush(data::Micros max_wait) {
  std::unique_lock lock(mutex_);
  return sent_.wait_for(lock, std::chrono::microseconds(max_wait), [&] { return requests_.empty() && !sending_; });
}

int ApiRequestQueue::pending() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(requests_.size()) + (sending_ ? 1 : 0);
}

void ApiRequestQueue::loop(std::stop_token stop) {
  for (;;) {
    Request request;
    {
      std::unique_lock lock(mutex_);
      if (!queued_.wait(lock, stop, [&] { return !requests_.empty(); })) return;
      request = std::move(requests_.front());
      requests_.pop_front();
      sending_ = true;
    }
    try {
      request(stop);
    } catch (const KubeApiError&) {
      if (stop.stop_requested()) return;
    }
    {
      std::lock_guard lock(mutex_);
      sending_ = false;
    }
    sent_.notify_all();
  }
}

}  // namespace millrace::cluster_adapter
