#include "tests/support/fault_injecting_cluster.h"

#include <string>

#include "data/error.h"

namespace millrace::test_support {

namespace {

void check_probability(double p, const std::string& name) {
  if (!(p >= 0 && p <= 1)) {
    throw data::Error("fault plan", name + " probability " + std::to_string(p) + " is outside [0, 1]");
  }
}

void check(const EventFaults& faults, const std::string& kind) {
  check_probability(faults.drop, kind + " drop");
  check_probability(faults.delay, kind + " delay");
  check_probability(faults.reorder, kind + " reorder");
  check_probability(faults.duplicate, kind + " duplicate");
  if (faults.delay_by < 0) {
    throw data::Error("fault plan", kind + " delay of " + std::to_string(faults.delay_by) + " us is negative");
  }
}

}  // namespace

FaultInjectingCluster::FaultInjectingCluster(scheduler::Cluster& target, scheduler::Clock& clock, FaultPlan plan)
    : ClusterWrapper(target), clock_(clock), plan_(plan), rng_(plan.seed) {
  check(plan_.started, "started");
  check(plan_.succeeded, "succeeded");
  check(plan_.failed, "failed");
  check_probability(plan_.fail_submit, "submit failure");
}

void FaultInjectingCluster::set_listener(scheduler::ClusterListener* listener) {
  listener_ = listener;
  ClusterWrapper::set_listener(this);
}

void FaultInjectingCluster::submit(const scheduler::Submission& submission) {
  if (happens(plan_.fail_submit)) {
    ++injected_.failed_submits;
    listener_->on_failed(scheduler::AttemptEvent{submission.handle, clock_.now(), "", -1, "submit-failed", {}});
    return;
  }
  ClusterWrapper::submit(submission);
}

void FaultInjectingCluster::flush() { release_held(); }

void FaultInjectingCluster::pass(Kind kind, const scheduler::AttemptEvent& event) {
  const EventFaults& faults = faults_of(kind);
  if (happens(faults.drop)) {
    ++injected_.dropped;
    return;
  }
  if (happens(faults.delay)) {
    ++injected_.delayed;
    clock_.call_at(clock_.now() + faults.delay_by,
                   [this, kind, later = scheduler::kept(event)] { deliver(kind, later.view()); });
    return;
  }
  if (!held_ && happens(faults.reorder)) {
    ++injected_.reordered;
    held_ = Held{kind, scheduler::kept(event)};
    return;
  }
  deliver(kind, event);
  if (happens(faults.duplicate)) {
    ++injected_.duplicated;
    deliver(kind, event);
  }
  release_held();
}

void FaultInjectingCluster::deliver(Kind kind, const scheduler::AttemptEvent& event) {
  switch (kind) {
    case Kind::kStarted: listener_->on_started(event); break;
    case Kind::kSucceeded: listener_->on_succeeded(event); break;
    case Kind::kFailed: listener_->on_failed(event); break;
  }
}

void FaultInjectingCluster::release_held() {
  if (!held_) return;
  Held held = *held_;
  held_.reset();
  deliver(held.kind, held.event.view());
}

const EventFaults& FaultInjectingCluster::faults_of(Kind kind) const {
  switch (kind) {
    case Kind::kStarted: return plan_.started;
    case Kind::kSucceeded: return plan_.succeeded;
    case Kind::kFailed: break;
  }
  return plan_.failed;
}

// Draws only for a fault that may happen, so a plan without faults draws nothing. The draw is
// the top 53 bits of the generator as a fraction: the same on every standard library.
bool FaultInjectingCluster::happens(double probability) {
  if (probability <= 0) return false;
  return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < probability;
}

}  // namespace millrace::test_support
