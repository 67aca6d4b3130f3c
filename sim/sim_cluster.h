// A simulated cluster behind the scheduler's Cluster seam: nodes with slots, pod creation and
// deletion overhead through an API that can be unavailable for windows, pod start-up latency
// (constant or drawn from recorded samples), per-attempt failures and node losses, every draw
// from the one seeded generator. Long-lived workers (Submission::worker) hold a slot and pay
// start-up once; otherwise every attempt is a Job with its own pod. A cluster fitted from
// recordings (data/cluster_model.h) may replace the typed-in start-up latency and failure
// probability and add a placement delay and a gap between a worker's items, per item type.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/cluster_model.h"
#include "scheduler/cluster.h"
#include "scheduler/flight.h"
#include "sim/duration_model.h"
#include "sim/node_pools.h"
#include "sim/pool_nodes.h"
#include "sim/sim_event.h"
#include "sim/spot_capacity.h"

namespace millrace::sim {

// Pod start-up latency: a constant, or one of the recorded samples drawn uniformly.
struct StartupLatency {
  data::Micros constant = 0;
  std::vector<data::Micros> samples;
};

struct NodeLoss {
  int node = 0;
  data::Micros at = 0;
};

struct Window {
  data::Micros from = 0;
  data::Micros to = 0;  // exclusive
};

// How a recorded attempt ended, replayed as it was: its duration, and its failure reason and exit
// code (reason empty: it succeeded).
struct RecordedEnd {
  data::Micros duration = 0;
  std::string reason;
  int exit_code = 0;
};

struct SimClusterConfig {
  int nodes = 1;
  int slots_per_node = 1;
  // When pools are given, they replace nodes x slots: each Job's pod asks for its item's
  // requests and goes to a node where they fit (job-per-item only: no long-lived workers).
  NodePoolsConfig pools;
  StartupLatency startup;
  data::Micros create_overhead = 0;   // API time to create a pod (Job)
  data::Micros delete_overhead = 0;   // time a finished Job's pod keeps its slot
  double fail_prob = 0;               // each attempt fails with this probability, part-way through
  std::vector<NodeLoss> node_losses;
  std::vector<Window> api_down;       // pod creation and deletion wait for the window's end
  // Items whose recording has failed attempts: attempt N ends as the recording's attempt N did
  // (past the recorded ones, as the last did), instead of after the duration model's duration.
  std::unordered_map<std::string, std::vector<RecordedEnd>> recorded_ends;
  // Fitted from recordings: each identified part is drawn for the attempt's item type. The
  // placement delay is waited after create_overhead, before a Job's (or a worker's pod's)
  // placement; the start-up latency replaces `startup`; the failures replace fail_prob (which
  // must then be 0); the worker gap is waited before each item a worker already up starts; the
  // provisioning delay brings up each node the autoscaler orders of a pool whose file gave no
  // provision_delay. A part a typed-in value overrides is cleared by the caller. Null: every draw
  // as without it.
  std::shared_ptr<const data::ClusterModel> fitted;
};

struct TimelineEntry {
  enum class Kind : std::uint8_t { kSubmitted, kPlaced, kStarted, kSucceeded, kFailed, kSlotFreed, kNodeLost };
  data::Micros at = 0;
  Kind kind = Kind::kSubmitted;
  scheduler::AttemptHandle handle = 0;  // 0 for slot and node entries
  int slot = -1;                        // slot, or node for kNodeLost
};

const char* to_string(TimelineEntry::Kind kind);

class SimCluster : public scheduler::Cluster {
 public:
  // Throws data::Error naming the bad setting (no slots, a probability outside [0, 1], a node
  // loss of an unknown node, a window ending before it starts, a spot pool without a rate).
  // `durations` holds the duration of the item at each plan position (Submission::index) and
  // outlives the cluster; it may grow meanwhile. Spot nodes' lifetimes are drawn from
  // `interruption_rng`, every other draw from `rng`.
  SimCluster(SimEngine& engine, SimClusterConfig config, const std::vector<data::Micros>& durations,
             std::mt19937_64& rng, std::mt19937_64& interruption_rng, bool record_timeline);

  void set_listener(scheduler::ClusterListener* listener) override { listener_ = listener; }
  void submit(const scheduler::Submission& submission) override;
  void cancel(scheduler::AttemptHandle handle) override;
  int capacity() const override { return alive_slots_; }
  void retire_worker(const std::string& worker) override;
  // Keeps each attempt's state in the submitter's flight records: without it (a test driving the
  // cluster alone) the cluster keeps a table of its own.
  void share_flights(scheduler::Flights& flights) override { flights_ = &flights; }

  // Handles a cluster event (any kind but kTimer).
  void handle(const SimEvent& event);

  // Throws data::Error naming the first item whose requests fit no pool's machine (or name a
  // resource no pool has), with the pools' capacities; and a spot pool whose interruptions the
  // plan's items could not survive (sim/spot_capacity.h). Returns the spot pools at risk, whose
  // median item is more often interrupted than not. Does nothing without pools.
  std::vector<SurvivalRisk> check_placeable(const scheduler::PlannedWork& plan) const;
  // Arms the scale-down checks of the pool nodes up at the start. Called once the scheduler made
  // its first submissions: the checks come after the placements due at the same time, so with a
  // scale-down delay of 0 a start node goes only if no pod was placed on it at 0 (before, they
  // all went before the first pods were placed, and the pods ordered nodes to replace them).
  void watch_start_nodes();
  // Spot pools: each pool's interruption rate and its source, the nodes taken back per pool, and
  // the attempts they took down.
  const std::vector<InterruptionRate>& interruption_rates() const { return interruption_rates_; }
  const std::vector<std::size_t>& nodes_interrupted() const { return nodes_interrupted_; }
  std::size_t attempts_interrupted() const { return attempts_interrupted_; }
  // The pool nodes (nullptr without pools) and, per short resource, how many pods waited for room.
  const PoolNodes* pool_nodes() const { return pool_nodes_.get(); }
  const std::map<std::string, std::size_t>& waits_by_short_resource() const { return short_waits_; }

  const std::vector<std::string>& slot_names() const { return slot_names_; }
  // Slot-time held by pods so far (creation to deletion), in microseconds.
  data::Micros slot_time() const;
  const std::vector<TimelineEntry>& timeline() const { return timeline_; }
  // Events a single one stood for (a pool's nodes up since the start are checked for scale-down
  // in one): added to the events handled, the count stays the model's, one per node.
  std::uint64_t folded_events() const { return folded_events_; }

  // One event per attempt where that changes nothing: from now on, an attempt's start due now
  // with nothing else due now (its event would be the next handled) is not queued; the owner
  // calls run_due_starts() after every event it hands out and after driving the scheduler
  // outside events, which runs them as their events would have run, in order.
  void defer_due_starts() { defer_due_starts_ = true; }
  void run_due_starts() {
    if (!due_starts_.empty()) run_starts(due_starts_);
  }
  // Starts run by run_due_starts(): SimulationResult::events counts them as the events they were.
  std::uint64_t starts_without_event() const { return starts_without_event_; }

 private:
  enum class Phase : std::uint8_t { kCreating, kPending, kStarting, kRunning };
  // kFitted + i: the i-th of fitted_modes_.
  enum Ending : std::uint32_t { kOk = 0, kExit = 1, kCancelled = 2, kRecorded = 3, kFitted = 4 };
  // The cluster's state of an attempt, kept in the attempt's flight record (ClusterRoom).
  struct Attempt {
    EventId next = 0;                  // its pending event
    std::uint32_t item = 0;            // its position in the plan
    int pod = -1;                      // long-lived worker pod running it, -1 for a Job
    int number = 1;                    // attempt number
    int slot = -1;                     // jobs: the slot of its pod
    int node = -1;                     // pools: the node of its pod
    std::uint32_t shape = 0;           // pools: its requests (shapes_)
    Phase phase = Phase::kCreating;
  };
  // Pods with the same requests: those waiting for room, in the order they came.
  struct Shape {
    Demand demand;
    std::deque<std::pair<std::uint64_t, scheduler::AttemptHandle>> waiting;  // (arrival, pod)
    std::string short_resource;        // why the first of them waits
  };
  // Room on a node ordered from the autoscaler that pending pods are counted against.
  struct OrderedRoom {
    int node = -1;
    Demand room;
  };
  // A worker's pod (Submission::worker; pod_index_ gives a name its pod), in 24 bytes.
  struct Pod {
    bool exists = false;               // created and not retired since
    int slot = -1;
    bool up = false;
    scheduler::AttemptHandle current = 0;
  };
  struct Slot {
    int node = 0;
    bool alive = true;
    bool held = false;
    data::Micros held_since = 0;
    scheduler::AttemptHandle job = 0;  // the Job attempt holding it, 0 if a worker pod holds it
    int pod = -1;                      // the worker pod holding it
  };

  data::Micros api_ready(data::Micros at) const;
  data::Micros draw_startup(const Attempt& attempt);
  // The fitted parts' draws: 0 (and no draw) without a fitted part.
  data::Micros placement_delay(const Attempt& attempt);
  data::Micros worker_gap(const Attempt& attempt);
  // How long a node of pool `p` ordered now takes to come up: the pool's provision_delay when
  // given or nothing is fitted, else a draw from the fitted provisioning (the pool's, else pooled).
  data::Micros provision_delay(std::size_t p);
  // kOk, or kFitted + the mode drawn with `duration` cut to when it fails.
  std::uint32_t draw_fitted_failure(const Attempt& attempt, data::Micros& duration);
  void place(scheduler::AttemptHandle handle);
  void occupy(int slot, scheduler::AttemptHandle handle, Attempt& attempt);
  static constexpr EventId kDueStart = ~EventId{0};  // Attempt::next of a start in due_starts_
  void start_after(data::Micros delay, scheduler::AttemptHandle handle, Attempt& attempt);
  void start(scheduler::AttemptHandle handle);
  void start(scheduler::AttemptHandle handle, Attempt& attempt);
  void run_starts(std::vector<scheduler::AttemptHandle>& starts);
  void end(scheduler::AttemptHandle handle, std::uint32_t ending);
  void free_slot_later(int slot);
  void free_slot(int slot);
  void lose_node(int node);
  void fail_now(scheduler::AttemptHandle handle, const char* reason);
  void note(TimelineEntry::Kind kind, scheduler::AttemptHandle handle, int slot);
  // The slot (a pool node's number on pools) the timeline names for the attempt's end, -1 for none.
  int timeline_slot(const Attempt& attempt) const;
  scheduler::AttemptEvent event_for(scheduler::AttemptHandle handle) const;
  // Only called when some item has a recording (config_.recorded_ends not empty).
  const RecordedEnd* recorded_end(const Attempt& attempt) const;
  int take_free_slot();
  Demand demand_of(const scheduler::PlannedWork& plan, std::size_t item) const;
  std::uint32_t shape_of(const scheduler::PlannedWork& plan, std::size_t item);
  void place_on_pool(scheduler::AttemptHandle handle, Attempt& attempt);
  void occupy_node(int node, scheduler::AttemptHandle handle, Attempt& attempt);
  void free_node(int node, std::uint64_t shape_and_incarnation);
  void place_waiting_on(int node);
  bool drop_stale(Shape& shape);
  void order_room(const Demand& demand);
  // Orders a node of pool `p` with `room` left for pods counted against it, up after its delay.
  void order_node(std::size_t p, Demand room);
  void node_up(int node);
  void arm_interruption(int node);
  void interrupt(int node, std::uint64_t incarnation);
  void node_idle(int node, std::uint64_t generation);
  void pool_idle(std::size_t pool);
  void watch_idle(int node);
  // The pod of a submission's worker, found by its lane when it has one (no name hashing per attempt).
  int pod_of(const scheduler::Submission& submission) {
    auto lane = static_cast<std::size_t>(submission.lane);
    return submission.lane >= 0 && lane < lane_pods_.size() && lane_pods_[lane] >= 0 ? lane_pods_[lane]
                                                                                      : name_pod(submission);
  }
  int name_pod(const scheduler::Submission& submission);
  // The state of attempt `handle`, nullptr when it is not in flight.
  Attempt* attempt_of(scheduler::AttemptHandle handle) {
    scheduler::Flight* flight = flights_->find(handle);
    return flight == nullptr ? nullptr : &flight->cluster.as<Attempt>();
  }
  // The attempt's end is being reported: its record goes, from the cluster's own table (a shared
  // record goes when the submitter has heard of the end).
  void forget(scheduler::AttemptHandle handle) {
    if (flights_ == &own_flights_) own_flights_.erase(handle);
  }
  void remove_pod(int pod);

  SimEngine& engine_;
  SimClusterConfig config_;
  const std::vector<data::Micros>& durations_;
  std::mt19937_64& rng_;
  std::mt19937_64& interruption_rng_;
  bool record_timeline_;
  scheduler::ClusterListener* listener_ = nullptr;
  std::vector<Slot> slots_;
  std::vector<std::string> slot_names_;
  std::priority_queue<int, std::vector<int>, std::greater<int>> free_slots_;
  std::deque<scheduler::AttemptHandle> waiting_;  // created pods waiting for a slot
  scheduler::Flights own_flights_;                 // the attempts, when no submitter shares its table
  scheduler::Flights* flights_ = &own_flights_;
  const scheduler::PlannedWork* plan_ = nullptr;   // the submissions' plan (one per run)
  std::vector<Pod> pods_;                          // by index, kept for the run (a name keeps its index)
  std::unordered_map<std::string, int> pod_index_;
  std::vector<int> lane_pods_;                     // Submission::lane -> pod, once seen
  int alive_slots_ = 0;
  std::unique_ptr<PoolNodes> pool_nodes_;
  std::map<std::string, std::size_t> resource_index_;
  std::vector<Shape> shapes_;
  std::map<Demand, std::uint32_t> shape_index_;
  // The requests shape_of() last looked up, and their shape.
  const data::Quantities* last_shaped_ = nullptr;
  std::uint32_t shape_of_last_ = 0;
  std::vector<OrderedRoom> ordered_rooms_;
  std::vector<InterruptionRate> interruption_rates_;  // per pool
  std::vector<std::size_t> nodes_interrupted_;        // per pool
  std::vector<int> spot_start_nodes_;                 // spot pools' nodes up at the start
  std::size_t attempts_interrupted_ = 0;
  std::uint64_t folded_events_ = 0;
  std::map<std::string, std::size_t> short_waits_;
  std::uint64_t arrivals_ = 0;
  data::Micros released_slot_time_ = 0;
  bool defer_due_starts_ = false;
  std::vector<scheduler::AttemptHandle> due_starts_;
  std::uint64_t starts_without_event_ = 0;
  std::vector<TimelineEntry> timeline_;
  // Fitted failure modes, numbered for Ending: each type's modes from its first number on.
  std::vector<const data::FailureMode*> fitted_modes_;
  std::map<const data::TypeFailures*, std::uint32_t> first_mode_;
};

}  // namespace millrace::sim
