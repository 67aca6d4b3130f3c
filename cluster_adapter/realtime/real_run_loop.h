// The real-run event loop: one thread alternates firing the WallClock's due timers and polling
// the cluster for events until the run is done. It never busy-waits: between timers it blocks
// inside cluster.poll() (child exits, API watch events wake it), bounded by the next timer and
// by `max_idle` so the `done` predicate and the after-step hook (status publishing, progress
// line) are revisited regularly.
#pragma once

#include <functional>

#include "cluster_adapter/realtime/polled_cluster.h"
#include "cluster_adapter/realtime/wall_clock.h"
#include "data/time.h"

namespace millrace::cluster_adapter {

class RealRunLoop {
 public:
  RealRunLoop(WallClock& clock, PolledCluster& cluster, data::Micros max_idle = 500 * data::kMicrosPerMilli);

  // Runs until `done()` is true (checked before each step). After each step (timers fired,
  // one poll), calls `after_step` when given.
  void run_until(const std::function<bool()>& done, const std::function<void()>& after_step = {});

 private:
  WallClock& clock_;
  PolledCluster& cluster_;
  data::Micros max_idle_;
};

}  // namespace millrace::cluster_adapter
