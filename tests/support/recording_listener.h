// The one ClusterListener of the tests that records what a cluster reports: every attempt event
// in arrival order with its kind, and every capacity change.
#pragma once

#include <string>
#include <vector>

#include "scheduler/cluster.h"

namespace millrace::test_support {

struct RecordedEvent {
  std::string kind;  // "started", "succeeded", "failed"
  scheduler::KeptAttemptEvent event;
};

class RecordingListener : public scheduler::ClusterListener {
 public:
  void on_started(const scheduler::AttemptEvent& e) override { events.push_back({"started", scheduler::kept(e)}); }
  void on_succeeded(const scheduler::AttemptEvent& e) override { events.push_back({"succeeded", scheduler::kept(e)}); }
  void on_failed(const scheduler::AttemptEvent& e) override { events.push_back({"failed", scheduler::kept(e)}); }
  void on_capacity_changed(int slots, data::Micros) override { capacities.push_back(slots); }

  int count(const std::string& kind) const {
    int n = 0;
    for (const RecordedEvent& r : events) n += r.kind == kind;
    return n;
  }
  int count(const std::string& kind, scheduler::AttemptHandle handle) const {
    int n = 0;
    for (const RecordedEvent& r : events) n += r.kind == kind && r.event.handle == handle;
    return n;
  }
  // Attempts reported finished (succeeded or failed).
  int finished() const { return count("succeeded") + count("failed"); }
  // The first event of `kind` for `handle`, or nullptr.
  const RecordedEvent* find(const std::string& kind, scheduler::AttemptHandle handle) const {
    for (const RecordedEvent& r : events) {
      if (r.kind == kind && r.event.handle == handle) return &r;
    }
    return nullptr;
  }

  std::vector<RecordedEvent> events;
  std::vector<int> capacities;
};

}  // namespace millrace::test_support
