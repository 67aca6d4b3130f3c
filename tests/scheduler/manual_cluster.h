// A hand-driven Cluster and Clock for scheduler tests: submissions are recorded, and the test
// decides when each attempt starts, succeeds or fails, and when time moves.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "scheduler/clock.h"
#include "scheduler/cluster.h"

namespace millrace::scheduler::testing {

class ManualClock : public Clock {
 public:
  data::Micros now() const override { return now_; }
  TimerId call_at(data::Micros when, std::function<void()> fire) override {
    timers_.emplace(std::make_pair(when, next_), std::move(fire));
    return next_++;
  }
  void cancel_timer(TimerId id) override {
    for (auto it = timers_.begin(); it != timers_.end(); ++it) {
      if (it->first.second == id) {
        timers_.erase(it);
        return;
      }
    }
  }
  // Moves time to `to`, firing the timers due on the way.
  void advance(data::Micros to) {
    while (!timers_.empty() && timers_.begin()->first.first <= to) {
      auto it = timers_.begin();
      now_ = it->first.first;
      auto fire = std::move(it->second);
      timers_.erase(it);
      fire();
    }
    now_ = to;
  }

 private:
  data::Micros now_ = 0;
  TimerId next_ = 1;
  std::map<std::pair<data::Micros, TimerId>, std::function<void()>> timers_;
};

class ManualCluster : public Cluster {
 public:
  explicit ManualCluster(const ManualClock& clock) : clock_(clock) {}
  void set_listener(ClusterListener* listener) override { listener_ = listener; }
  void submit(const Submission& submission) override { submitted.push_back(submission); }
  void cancel(AttemptHandle handle) override { cancelled.push_back(handle); }
  int capacity() const override { return slots; }
  void retire_worker(const std::string& worker) override { retired.push_back(worker); }

  void start(AttemptHandle handle, const std::string& worker) {
    listener_->on_started(AttemptEvent{handle, clock_.now(), worker, 0, "", std::nullopt});
  }
  void succeed(AttemptHandle handle) {
    listener_->on_succeeded(AttemptEvent{handle, clock_.now(), "", 0, "", std::nullopt});
  }
  void fail(AttemptHandle handle, const std::string& reason) {
    listener_->on_failed(AttemptEvent{handle, clock_.now(), "", 1, reason, std::nullopt});
  }
  void set_capacity(int n) {
    slots = n;
    listener_->on_capacity_changed(n, clock_.now());
  }

  std::vector<Submission> submitted;
  std::vector<AttemptHandle> cancelled;
  std::vector<std::string> retired;
  int slots = 1000;

 private:
  const ManualClock& clock_;
  ClusterListener* listener_ = nullptr;
};

}  // namespace millrace::scheduler::testing
