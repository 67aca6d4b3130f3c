#include "sim/virtual_clock.h"

namespace millrace::sim {

scheduler::TimerId VirtualClock::call_at(data::Micros when, std::function<void()> fire) {
  std::uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<std::uint32_t>(timers_.size());
    timers_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Timer& timer = timers_[slot];
  timer.fire = std::move(fire);
  timer.armed = true;
  timer.event = engine_.at(when, SimEvent{SimEvent::Kind::kTimer, slot, timer.generation});
  return static_cast<scheduler::TimerId>(timer.generation) << 32 | slot;
}

void VirtualClock::cancel_timer(scheduler::TimerId id) {
  auto slot = static_cast<std::uint32_t>(id);
  if (slot >= timers_.size() || timers_[slot].generation != static_cast<std::uint32_t>(id >> 32) ||
      !timers_[slot].armed) {
    return;
  }
  engine_.cancel(timers_[slot].event);
  disarm(slot);
}

void VirtualClock::fire(const SimEvent& event) {
  Timer& timer = timers_[event.index];
  if (!timer.armed || timer.generation != event.value) return;
  std::function<void()> fire = std::move(timer.fire);
  disarm(event.index);
  fire();
}

void VirtualClock::disarm(std::uint32_t slot) {
  Timer& timer = timers_[slot];
  timer.armed = false;
  timer.fire = nullptr;
  ++timer.generation;
  free_.push_back(slot);
}

}  // namespace millrace::sim
