// A Cluster that lies the way real clusters do (LevelDB's FaultInjectionTestEnv habit): built on
// ClusterWrapper, it passes submissions to the wrapped cluster and the wrapped cluster's events
// back to the listener, but drops, duplicates, delays or reorders events and fails submits, each
// with its own probability per event kind. Every decision is a draw from one seeded generator in
// a fixed order, so a seed and a plan give the same faults on every machine. Tests of the
// scheduler core use it to check that a range is never counted twice nor lost whatever the
// cluster reports.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "scheduler/clock.h"
#include "tests/support/cluster_wrapper.h"

namespace millrace::test_support {

// What may happen to one kind of event; each is a probability in [0, 1], decided in this order.
struct EventFaults {
  double drop = 0;          // never delivered
  double delay = 0;         // delivered `delay_by` later on the clock, its time unchanged
  data::Micros delay_by = 0;
  double reorder = 0;       // held back and delivered right after the next event passed on
  double duplicate = 0;     // delivered twice in a row
};

struct FaultPlan {
  std::uint64_t seed = 1;
  EventFaults started;
  EventFaults succeeded;
  EventFaults failed;
  // A submit is not passed on; the attempt is reported failed at once, inside submit(), with
  // reason "submit-failed" and exit code -1 (a cluster that knows straight away it cannot run it).
  double fail_submit = 0;
};

// How many times each fault was injected, so a test can check it exercised what it meant to.
struct InjectedFaults {
  int dropped = 0;
  int delayed = 0;
  int reordered = 0;
  int duplicated = 0;
  int failed_submits = 0;
};

class FaultInjectingCluster : public ClusterWrapper, private scheduler::ClusterListener {
 public:
  // Throws data::Error naming the fault whose probability is outside [0, 1] or whose delay is < 0.
  FaultInjectingCluster(scheduler::Cluster& target, scheduler::Clock& clock, FaultPlan plan);

  void set_listener(scheduler::ClusterListener* listener) override;
  void submit(const scheduler::Submission& submission) override;

  // Delivers the event held back for reordering, if any (nothing else may ever follow it).
  void flush();
  const InjectedFaults& injected() const { return injected_; }

 private:
  enum class Kind { kStarted, kSucceeded, kFailed };
  void on_started(const scheduler::AttemptEvent& event) override { pass(Kind::kStarted, event); }
  void on_succeeded(const scheduler::AttemptEvent& event) override { pass(Kind::kSucceeded, event); }
  void on_failed(const scheduler::AttemptEvent& event) override { pass(Kind::kFailed, event); }
  void on_capacity_changed(int slots, data::Micros at) override { listener_->on_capacity_changed(slots, at); }

  void pass(Kind kind, const scheduler::AttemptEvent& event);
  void deliver(Kind kind, const scheduler::AttemptEvent& event);
  void release_held();
  const EventFaults& faults_of(Kind kind) const;
  bool happens(double probability);

  scheduler::Clock& clock_;
  FaultPlan plan_;
  std::mt19937_64 rng_;
  scheduler::ClusterListener* listener_ = nullptr;
  struct Held {
    Kind kind;
    scheduler::KeptAttemptEvent event;
  };
  std::optional<Held> held_;
  InjectedFaults injected_;
};

}  // namespace millrace::test_support
