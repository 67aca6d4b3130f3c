// The discrete-event engine: a virtual clock in integer microseconds and the pending events.
// run() pops events in (time, insertion) order and hands each to a handler given as a template
// parameter, so the hot loop makes no virtual call and allocates nothing.
#pragma once

#include <cstdint>

#include "data/time.h"
#include "sim/event_queue.h"

namespace millrace::sim {

template <typename Event>
class Engine {
 public:
  data::Micros now() const { return now_; }
  std::size_t pending() const { return queue_.size(); }
  void reserve(std::size_t n) { queue_.reserve(n); }
  // True when an event (or a cancelled one) is due now besides the one being handled: one
  // scheduled now would not be the next handled.
  bool due_now() const { return queue_.maybe_at(now_); }

  // Schedules `event` at `when` (at once, i.e. now, when `when` is past).
  EventId at(data::Micros when, const Event& event) { return queue_.push(when < now_ ? now_ : when, event); }
  EventId after(data::Micros delay, const Event& event) { return at(now_ + delay, event); }
  bool cancel(EventId id) { return queue_.cancel(id); }
  void stop() { stopped_ = true; }

  // Runs events until none is left, stop() is called, or the next one is after `until`.
  // `handler(event)` may schedule and cancel events. Returns the number of events handled.
  template <typename Handler>
  std::uint64_t run(Handler& handler, data::Micros until = INT64_MAX) {
    std::uint64_t handled = 0;
    stopped_ = false;
    Event event;
    while (!stopped_ && !queue_.empty() && queue_.next_time() <= until) {
      now_ = queue_.pop(event);
      handler(event);
      ++handled;
    }
    return handled;
  }

 private:
  EventQueue<Event> queue_;
  data::Micros now_ = 0;
  bool stopped_ = false;
};

}  // namespace millrace::sim
