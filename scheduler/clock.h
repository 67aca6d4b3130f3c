// The Clock seam: the scheduler core asks "what time is it" and "wake me at T" through this
// interface only. The simulator's VirtualClock jumps from event to event; a real run's clock
// reads the wall clock and fires timers from its event loop.
#pragma once

#include <cstdint>
#include <functional>

#include "data/time.h"

namespace millrace::scheduler {

using TimerId = std::uint64_t;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual data::Micros now() const = 0;
  // Calls `fire` once at `when` (or at once if `when` is past). Returns an id for cancel_timer.
  virtual TimerId call_at(data::Micros when, std::function<void()> fire) = 0;
  // Cancels a pending timer; cancelling a fired or unknown timer does nothing.
  virtual void cancel_timer(TimerId id) = 0;
};

}  // namespace millrace::scheduler
