// A pool's lanes (its long-lived workers w000, w001, ... by index) as the scheduler takes and
// gives them back for every attempt: inline, without a virtual call. The lanes below the pool's
// target are its workers now; an idle one among them is handed out lowest first, so schedules
// are reproducible. How the target moves (fixed, partial, autoscale) is the pool policy's
// business (scheduler/worker_pool_policy.h), which also retires what leaves the pool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/index_set.h"

namespace millrace::scheduler {

class LanePool {
 public:
  // `lanes` lanes, named w000, w001, ...: zero-padded to the widest lane. The target starts at 0.
  explicit LanePool(int lanes);

  int lanes() const { return static_cast<int>(names_.size()); }
  const std::string& name(int lane) const { return names_[lane]; }
  int target() const { return target_; }
  bool none_idle() const { return idle_.empty(); }

  // Takes the lowest idle lane. Precondition: !none_idle().
  int take() {
    const int lane = static_cast<int>(idle_.first());
    idle_.erase(lane);
    warm_.erase(lane);
    busy_[lane] = 1;
    alive_[lane] = 1;
    return lane;
  }
  // Gives back a lane taken; false when it is no longer below the target (the owner retires it).
  bool give_back(int lane) {
    busy_[lane] = 0;
    if (lane >= target_) return false;
    idle_.insert(lane);
    warm_.insert(lane);
    return true;
  }

  // Moves the target to `target` (within 0 .. lanes()): lanes that join are idle unless busy;
  // `leave(lane)` is called for each idle lane that leaves and whose worker is alive.
  template <typename Leave>
  void resize(int target, Leave&& leave) {
    for (int w = target_; w < target; ++w) {
      if (!busy_[w]) idle_.insert(w);
    }
    for (int w = target; w < target_; ++w) {
      if (idle_.erase(w) && alive_[w]) leave(w);
    }
    target_ = target;
  }
  // The worker of `lane` is gone (its pod freed): a later take() brings it back.
  void retire(int lane) {
    alive_[lane] = 0;
    warm_.erase(lane);
  }
  // An idle lane whose worker is alive, the lowest, or -1.
  int first_warm() const { return warm_.empty() ? -1 : static_cast<int>(warm_.first()); }
  // No lane is handed out any more (the run is over).
  void close() {
    idle_.clear();
    target_ = 0;
  }

 private:
  std::vector<std::string> names_;
  int target_ = 0;
  IndexSet idle_;                   // idle lanes below target_
  // Flags as bytes, not std::vector<bool>'s bits: they are set and cleared on every attempt.
  std::vector<std::uint8_t> busy_;
  std::vector<std::uint8_t> alive_; // its worker was taken at least once since last retired
  IndexSet warm_;                   // idle and alive: retired when the queue drains
};

}  // namespace millrace::scheduler
