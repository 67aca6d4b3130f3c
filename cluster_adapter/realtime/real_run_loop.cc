#include "cluster_adapter/realtime/real_run_loop.h"

#include <algorithm>

namespace millrace::cluster_adapter {

RealRunLoop::RealRunLoop(WallClock& clock, PolledCluster& cluster, data::Micros max_idle)
    : clock_(clock), cluster_(cluster), max_idle_(max_idle) {}

void RealRunLoop::run_until(const std::function<bool()>& done, const std::function<void()>& after_step) {
  while (!done()) {
    clock_.fire_due();
    if (done()) break;
    data::Micros wait = max_idle_;
    if (auto next = clock_.next_due()) wait = std::clamp<data::Micros>(*next - clock_.now(), 0, max_idle_);
    cluster_.poll(wait);
    if (after_step) after_step();
  }
}

}  // namespace millrace::cluster_adapter
