// A hand-driven Cluster: submissions, cancels and retired workers are recorded, and the test
// decides when each attempt starts, succeeds or fails (at the ManualClock's time) and when the
// capacity changes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/cluster.h"
#include "tests/support/manual_clock.h"

namespace millrace::test_support {

class ManualCluster : public scheduler::Cluster {
 public:
  explicit ManualCluster(const ManualClock& clock) : clock_(clock) {}
  void set_listener(scheduler::ClusterListener* listener) override { listener_ = listener; }
  void submit(const scheduler::Submission& submission) override { submitted.push_back(submission); }
  void cancel(scheduler::AttemptHandle handle) override { cancelled.push_back(handle); }
  int capacity() const override { return slots; }
  void retire_worker(const std::string& worker) override { retired.push_back(worker); }

  // `key`: the cluster's own number for the worker (AttemptEvent::worker_key), when it gives one.
  void start(scheduler::AttemptHandle handle, const std::string& worker,
             std::uint32_t key = scheduler::AttemptEvent::kNoWorkerKey) {
    listener_->on_started(scheduler::AttemptEvent{handle, clock_.now(), worker, 0, "", std::nullopt, key});
  }
  // A start that says where and when the attempt was placed before its work started.
  void start_placed(scheduler::AttemptHandle handle, const std::string& worker, data::Micros placed,
                    const std::string& node, std::optional<data::Micros> unschedulable = std::nullopt) {
    scheduler::AttemptEvent event{handle, clock_.now(), worker, 0, "", std::nullopt};
    event.placed = placed;
    event.node = node;
    event.unschedulable = unschedulable;
    listener_->on_started(event);
  }
  // `work_time`: the per-unit work part the attempt reports, when it reports one.
  void succeed(scheduler::AttemptHandle handle, std::optional<data::Micros> work_time = std::nullopt) {
    listener_->on_succeeded(scheduler::AttemptEvent{handle, clock_.now(), "", 0, "", work_time});
  }
  void fail(scheduler::AttemptHandle handle, const std::string& reason) {
    listener_->on_failed(scheduler::AttemptEvent{handle, clock_.now(), "", 1, reason, std::nullopt});
  }
  void set_capacity(int n) {
    slots = n;
    listener_->on_capacity_changed(n, clock_.now());
  }

  std::vector<scheduler::Submission> submitted;
  std::vector<scheduler::AttemptHandle> cancelled;
  std::vector<std::string> retired;
  int slots = 1000;

 private:
  const ManualClock& clock_;
  scheduler::ClusterListener* listener_ = nullptr;
};

}  // namespace millrace::test_support
