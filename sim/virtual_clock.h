// The scheduler's Clock in virtual time: now() is the engine's time and timers are engine
// events, so a simulated run jumps from event to event instead of waiting.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "scheduler/clock.h"
#include "sim/sim_event.h"

namespace millrace::sim {

class VirtualClock : public scheduler::Clock {
 public:
  explicit VirtualClock(SimEngine& engine) : engine_(engine) {}

  data::Micros now() const override { return engine_.now(); }
  scheduler::TimerId call_at(data::Micros when, std::function<void()> fire) override;
  void cancel_timer(scheduler::TimerId id) override;
  // Runs the timer of a kTimer event (the simulation's event handler calls this).
  void fire(const SimEvent& event);

 private:
  struct Timer {
    std::function<void()> fire;
    EventId event = 0;
    std::uint32_t generation = 0;
    bool armed = false;
  };
  void disarm(std::uint32_t slot);

  SimEngine& engine_;
  std::vector<Timer> timers_;
  std::vector<std::uint32_t> free_;
};

}  // namespace millrace::sim
