// The scheduler core: a deterministic, single-threaded state machine that takes a work plan
// (items in plan order), drives a Cluster through a Clock and reacts to the cluster's events.
// It holds no threads: the simulator's event loop or a real run's event loop calls into it. Its
// state (item states, attempts, attempts in flight) is observable transition by transition and
// can be snapshotted and restored, so a real run can persist it and resume after a crash.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/records.h"
#include "data/run_summary.h"
#include "scheduler/clock.h"
#include "scheduler/cluster.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/flight.h"
#include "scheduler/flight_table.h"
#include "scheduler/planned_work.h"
#include "scheduler/retry_policy.h"
#include "scheduler/status_report.h"
#include "scheduler/work_graph.h"
#include "scheduler/work_queue.h"

namespace millrace::data {
class RunTally;
}  // namespace millrace::data

namespace millrace::scheduler {

struct SchedulerOptions {
  std::string plan_name = "plan";       // names the plan (a run id, a file) in errors
  std::string policy = "fixed-pool";
  PolicyParams params;
  QueueOrder order = QueueOrder::kPlan;
  RetryPolicy retry;
  OnExhausted on_exhausted = OnExhausted::kFailRun;
};

enum class ItemState {
  kWaiting,    // on predecessors, its submit time, or a retry backoff
  kReady,      // in the queue
  kInFlight,
  kSucceeded,
  kFailed,     // exhausted its attempts
  kBlocked,    // a predecessor failed: it will never run
};

const char* to_string(ItemState state);

// One attempt the cluster holds, as the scheduler knows it.
struct InFlight {
  AttemptHandle handle = 0;
  std::string item_id;
  int attempt = 1;
  std::string worker;                  // submitted-to worker, then the one that started it
  data::Micros submitted = 0;
  std::optional<data::Micros> started;
};

struct ItemSnapshot {
  std::string id;
  ItemState state = ItemState::kWaiting;
  int attempts = 0;                    // attempt numbers used so far
  int cancelled = 0;                   // of which cancelled: they do not use up the retry budget
};

// Everything needed to resume a run: item states, attempts in flight and the next handle.
struct SchedulerSnapshot {
  std::vector<ItemSnapshot> items;     // in plan order
  std::vector<InFlight> in_flight;
  AttemptHandle next_handle = 1;
  bool run_failed = false;
};

// Called at every attempt transition: submitted and started (outcome kRunning), then finished.
using AttemptObserver = std::function<void(AttemptHandle, const data::Attempt&)>;

class Scheduler : public ClusterListener, private PolicyHost {
 public:
  // Validates the plan (work graph) and the policy; throws data::Error naming the plan or the
  // policy. Installs itself as the cluster's listener.
  Scheduler(std::vector<data::WorkItem> plan, SchedulerOptions options, Cluster& cluster, Clock& clock);
  // The same on a plan already validated, shared with other runs of it (it is only read).
  Scheduler(std::shared_ptr<const PlannedWork> plan, SchedulerOptions options, Cluster& cluster, Clock& clock);
  // Resumes from a snapshot of the same plan: settled items stay settled, attempts in flight are
  // re-attached (their events are expected under the same handles), the rest is queued again.
  Scheduler(std::vector<data::WorkItem> plan, SchedulerOptions options, Cluster& cluster, Clock& clock,
            const SchedulerSnapshot& resume);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void set_observer(AttemptObserver observer) { observer_ = std::move(observer); }
  // Called before start(): every attempt is also tallied into `tally` as it starts and ends
  // (data/run_tally.h; its sweep needs the cluster to report in time order, as a simulation
  // does), and unless `keep_spans` no span is kept: attempt_spans() and attempts() stay empty,
  // and a run of millions of items holds its summary in a few bytes an item.
  void tally_attempts(data::RunTally& tally, bool keep_spans);
  // Submits the first attempts; the rest follows from cluster events and timers.
  void start();
  // Stops the run gracefully (a Ctrl-C): nothing is submitted from now on, every attempt in
  // flight is cancelled through the cluster and, once reported cancelled, its item waits again
  // with its retry budget untouched, so a resumed run gives it all its attempts.
  void stop();
  // stop() was called and no attempt is in flight any more.
  bool stopped() const { return stopping_ && flights_.empty(); }

  // Every item succeeded, failed or was blocked by a failed predecessor.
  bool finished() const { return settled_ == work_.size(); }
  bool run_failed() const { return run_failed_; }
  const PlannedWork& plan() const { return work_; }
  ItemState state(std::size_t index) const { return records_[index].state; }
  const WorkGraph& graph() const { return graph_; }
  // Every finished attempt, in the order they finished.
  std::vector<data::Attempt> attempts() const;
  // The same, compactly, as the run summary reads them (data/run_summary.h): item and worker
  // by number, no worker (kNoWorkerRecord) for an attempt on none or on an unnamed one. What else
  // an attempt has is kept aside, only for those that are not plain (a first attempt, exit 0, no
  // reason, no work time reported).
  static constexpr std::uint32_t kNoWorkerRecord = data::AttemptSpan::kNoWorker;
  const std::vector<data::AttemptSpan>& attempt_spans() const { return attempt_spans_; }
  // The work time the finished attempts reported, summed (data::RunSummary::work_time).
  data::Micros work_time() const { return work_time_; }
  // Workers (submitted to, or named by the cluster) are numbered as first seen; kNoWorkerRecord is none.
  std::size_t worker_count() const { return workers_.size(); }
  const std::string& worker_name(std::uint32_t worker) const;
  // The finished attempt at `position` (in attempt_spans()).
  data::Attempt attempt(std::size_t position) const { return attempt(attempt_spans_[position], position); }
  // The finished attempt `span`, the position-th to finish, whole.
  data::Attempt attempt(const data::AttemptSpan& span, std::size_t position) const;
  std::size_t in_flight() const { return flights_.size(); }
  StatusReport status() const;
  SchedulerSnapshot snapshot() const;

  void on_started(const AttemptEvent& event) override;
  void on_succeeded(const AttemptEvent& event) override;
  void on_failed(const AttemptEvent& event) override;
  void on_capacity_changed(int slots, data::Micros at) override;

 private:
  struct ItemRecord {
    std::uint32_t attempts = 0;
    ItemState state = ItemState::kWaiting;
  };
  // What an item has after an attempt that did not succeed (most items have none): shown for
  // failed and blocked items, and cancelled attempts are not held against the retry budget.
  struct ItemTrail {
    int cancelled = 0;
    std::uint32_t last_worker = kNoWorkerRecord;
    std::uint32_t last_reason = 0;
  };
  // An attempt that is not plain, by its position among the finished ones.
  struct AttemptDetail {
    std::size_t position = 0;
    int number = 1;
    int exit_code = 0;
    std::uint32_t reason = 0;          // index into the reasons; 0 is "" (none)
    std::optional<data::Micros> work_time{};  // as reported, when reported
  };
  // What an attempt's start and end update of its worker, in 24 bytes (its name is kept apart,
  // in worker_names_): with thousands of workers a range touches one cache line of them.
  struct WorkerRecord {
    data::Micros busy_time = 0;
    std::uint32_t item = 0;            // what it runs, when busy
    int succeeded = 0;
    int failed = 0;
    bool named = false;                // its name is not empty: its attempts are summarised under it
    bool started = false;              // has started an attempt (shown in the status)
    bool busy = false;
  };
  // Where and when a real cluster placed an attempt (AttemptEvent::placed, node), kept from its
  // start to its end for the observer only: a simulation, which has none, keeps nothing.
  struct Placement {
    std::optional<data::Micros> placed;
    std::string node;
    std::optional<data::Micros> unschedulable;
  };

  Clock& clock() override { return clock_; }
  int cluster_capacity() const override { return cluster_.capacity(); }
  data::Micros remaining_predicted() const override { return remaining_predicted_; }
  void retire_worker(const std::string& worker) override { cluster_.retire_worker(worker); }
  void wake() override;

  void make_available(std::size_t index);
  void enqueue(std::size_t index);
  void dispatch();
  void launch(std::size_t index);
  // Events of attempts no longer in flight (a late or repeated report of an attempt already
  // finished, cancelled or retried) are ignored: an attempt ends once and an item is settled once.
  // A handle never handed out is a cluster reporting an attempt that does not exist: an error.
  Flight* flight_of(const AttemptEvent& event, const char* kind) {
    if (event.handle == 0 || event.handle >= next_handle_) [[unlikely]] throw_never_submitted(event.handle, kind);
    return flights_.find(event.handle);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void throw_never_submitted(AttemptHandle handle, const char* kind) const;
  void finish(const Flight* flight, const AttemptEvent& event, data::Outcome outcome);
  void give_up(std::size_t index);
  void settle(std::size_t index, ItemState state);
  void notify(AttemptHandle handle, const CoreFlight& flight, data::Outcome outcome, data::Micros end,
              const AttemptEvent* event);
  std::uint32_t worker_named(std::string_view name);
  // The worker record of a pool lane, named on the lane's first attempt.
  std::uint32_t lane_worker(int lane) {
    auto at = static_cast<std::size_t>(lane);
    return at < lane_workers_.size() && lane_workers_[at] != kNoWorkerRecord ? lane_workers_[at]
                                                                              : name_lane_worker(lane);
  }
  std::uint32_t name_lane_worker(int lane);
  // The worker record of a started event's worker found by its key (AttemptEvent::worker_key).
  std::uint32_t keyed_worker(const AttemptEvent& event);
  std::uint32_t reason_named(std::string_view reason);
  // The worker an attempt on `worker` is summarised under: none when unnamed.
  std::uint32_t logged_worker(std::uint32_t worker) const {
    return worker != kNoWorkerRecord && workers_[worker].named ? worker : kNoWorkerRecord;
  }
  InFlight in_flight_record(AttemptHandle handle, const CoreFlight& flight) const;
  // Item `index` as the status report names it: its range as a person reads it (data::Range::text),
  // or in the END/COUNT form of a catch-up monitor's jobs_in_progress; the item id for other work.
  std::string label(std::size_t index) const;
  std::string end_count_label(std::size_t index) const;
  int cancelled(std::size_t index) const;
  std::uint32_t waiting_on(std::size_t index) const { return waiting_on_.empty() ? 0 : waiting_on_[index]; }

  std::shared_ptr<const PlannedWork> plan_;
  const PlannedWork& work_;                   // *plan_
  const WorkGraph& graph_;                    // plan_'s
  SchedulerOptions options_;
  Cluster& cluster_;
  Clock& clock_;
  WorkQueue queue_;
  std::unique_ptr<ConcurrencyPolicy> policy_;
  std::vector<ItemRecord> records_;
  std::vector<std::uint32_t> waiting_on_;    // predecessors not yet succeeded; empty without dependencies
  std::unordered_map<std::uint32_t, ItemTrail> trails_;
  Flights flights_;                          // shared with the cluster (Cluster::share_flights)
  std::vector<WorkerRecord> workers_;
  std::vector<std::string> worker_names_;    // by worker record
  std::unordered_map<std::string, std::uint32_t> worker_index_;
  std::vector<std::uint32_t> lane_workers_;  // pool lane -> its worker record, once known
  std::vector<std::uint32_t> keyed_workers_; // cluster's worker key -> its worker record, once known
  std::vector<std::string> reasons_{""};     // failure reasons, interned
  std::unordered_map<std::string, std::uint32_t> reason_index_{{"", 0}};
  std::vector<data::AttemptSpan> attempt_spans_;
  bool keep_spans_ = true;
  data::RunTally* tally_ = nullptr;
  std::size_t finished_attempts_ = 0;
  std::vector<AttemptDetail> attempt_details_;
  data::Micros work_time_ = 0;
  AttemptObserver observer_;
  std::unordered_map<AttemptHandle, Placement> placements_;
  AttemptHandle next_handle_ = 1;
  std::size_t settled_ = 0;
  std::size_t succeeded_ = 0;
  data::Micros remaining_predicted_ = 0;
  bool run_failed_ = false;
  bool started_ = false;
  bool stopping_ = false;
  bool dispatching_ = false;
  bool dispatch_again_ = false;
  bool finish_announced_ = false;
};

}  // namespace millrace::scheduler
