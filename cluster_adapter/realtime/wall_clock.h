// The real run's Clock: now() reads std::chrono::steady_clock (monotonic, never jumps back)
// in integer microseconds, anchored at construction to the system clock so that times recorded
// by successive sessions of one run (a run resumed after a crash) stay comparable. Timers wait
// in a heap; the real-run event loop (real_run_loop.h) fires them with fire_due(), on its own
// thread, so the scheduler core never sees another thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "data/time.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

class WallClock : public scheduler::Clock {
 public:
  // now() starts at the system clock's current time (microseconds since the Unix epoch).
  WallClock();
  // now() starts at `origin` (tests, or a fixed time base).
  explicit WallClock(data::Micros origin);

  data::Micros now() const override;
  scheduler::TimerId call_at(data::Micros when, std::function<void()> fire) override;
  void cancel_timer(scheduler::TimerId id) override;

  // Fires every timer due at now(), in order of due time (then of creation); timers a callback
  // adds that are already due fire in the same call. Returns how many fired.
  int fire_due();
  // Due time of the earliest pending timer, if any.
  std::optional<data::Micros> next_due();

 private:
  struct Entry {
    data::Micros when;
    scheduler::TimerId id;
    bool operator>(const Entry& other) const {
      return when != other.when ? when > other.when : id > other.id;
    }
  };
  void drop_cancelled();

  std::chrono::steady_clock::time_point start_;
  data::Micros origin_;
  scheduler::TimerId next_id_ = 1;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  std::unordered_map<scheduler::TimerId, std::function<void()>> pending_;
};

}  // namespace millrace::cluster_adapter
