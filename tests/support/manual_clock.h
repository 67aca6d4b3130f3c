// The one hand-driven Clock of the tests: now() is what the test sets, and timers fire only
// when the test moves time past them (advance), in (time, order of call_at) order. now() may be
// read from another thread (an HTTP server under test); timers belong to the test's thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <utility>

#include "scheduler/clock.h"

namespace millrace::test_support {

class ManualClock : public scheduler::Clock {
 public:
  explicit ManualClock(data::Micros start = 0) : now_(start) {}

  data::Micros now() const override { return now_; }
  scheduler::TimerId call_at(data::Micros when, std::function<void()> fire) override {
    timers_.emplace(std::make_pair(when, next_id_), std::move(fire));
    return next_id_++;
  }
  void cancel_timer(scheduler::TimerId id) override {
    for (auto it = timers_.begin(); it != timers_.end(); ++it) {
      if (it->first.second == id) {
        timers_.erase(it);
        return;
      }
    }
  }

  // Moves time to `to`, firing the timers due on the way (each at its own time).
  void advance(data::Micros to) {
    while (!timers_.empty() && timers_.begin()->first.first <= to) {
      auto due = timers_.begin();
      now_ = due->first.first;
      std::function<void()> fire = std::move(due->second);
      timers_.erase(due);
      fire();
    }
    now_ = to;
  }
  // Sets the time without firing anything (for code under test that sets no timers).
  void set(data::Micros now) { now_ = now; }
  std::size_t pending_timers() const { return timers_.size(); }

 private:
  std::atomic<data::Micros> now_;
  scheduler::TimerId next_id_ = 1;
  std::map<std::pair<data::Micros, scheduler::TimerId>, std::function<void()>> timers_;
};

}  // namespace millrace::test_support
