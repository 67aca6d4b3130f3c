// A run's outgoing API calls (Job creates and deletes) on one background thread, sent one at a
// time in the order they were queued; each call does its own retrying (KubeClient::call) and is
// told to give up through its stop token when the queue is destroyed. The thread that queues
// never waits on the network; flush() lets a run that ends wait until what it queued was sent.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>

#include "data/time.h"

namespace millrace::cluster_adapter {

class ApiRequestQueue {
 public:
  using Request = std::function<void(std::stop_token stop)>;

  ApiRequestQueue();
  // Abandons what is still queued and stops the call being sent; joins the thread.
  ~ApiRequestQueue();
  ApiRequestQueue(const ApiRequestQueue&) = delete;
  ApiRequestQueue& operator=(const ApiRequestQueue&) = delete;

  void push(Request request);
  // Waits until every request queued so far was sent, or `max_wait` passed; true when all were.
  bool flush(data::Micros max_wait);
  // Requests queued or being sent.
  int pending() const;

 private:
  void loop(std::stop_token stop);

  mutable std::mutex mutex_;
  std::condition_variable_any queued_;
  std::condition_variable sent_;
  std::deque<Request> requests_;
  bool sending_ = false;
  std::jthread thread_;
};

}  // namespace millrace::cluster_adapter
