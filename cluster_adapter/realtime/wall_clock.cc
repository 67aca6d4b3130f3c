#include "cluster_adapter/realtime/wall_clock.h"

#include <utility>

namespace millrace::cluster_adapter {

namespace {

data::Micros system_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

WallClock::WallClock() : WallClock(system_now()) {}

WallClock::WallClock(data::Micros origin) : start_(std::chrono::steady_clock::now()), origin_(origin) {}

data::Micros WallClock::now() const {
  auto elapsed = std::chrono::steady_clock::now() - start_;
  return origin_ + std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
}

scheduler::TimerId WallClock::call_at(data::Micros when, std::function<void()> fire) {
  scheduler::TimerId id = next_id_++;
  heap_.push(Entry{when, id});
  pending_.emplace(id, std::move(fire));
  return id;
}

void WallClock::cancel_timer(scheduler::TimerId id) { pending_.erase(id); }

void WallClock::drop_cancelled() {
  while (!heap_.empty() && !pending_.contains(heap_.top().id)) heap_.pop();
}

int WallClock::fire_due() {
  int fired = 0;
  for (drop_cancelled(); !heap_.empty() && heap_.top().when <= now(); drop_cancelled()) {
    scheduler::TimerId id = heap_.top().id;
    heap_.pop();
    auto node = pending_.extract(id);
    node.mapped()();
    ++fired;
  }
  return fired;
}

std::optional<data::Micros> WallClock::next_due() {
  drop_cancelled();
  if (heap_.empty()) return std::nullopt;
  return heap_.top().when;
}

}  // namespace millrace::cluster_adapter
