// One simulated run: the scheduler core, a SimCluster and a VirtualClock on one event engine,
// driven until nothing is left to happen, then summarised: makespan against the critical path,
// per-worker busy and idle time, utilisation, node-hours, what it cost when priced
// (sim/run_cost.h), attempts and failures, the straggler tail, and (on request) the timeline of
// cluster events.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/queue_waits.h"
#include "data/records.h"
#include "data/run_summary.h"
#include "scheduler/planned_work.h"
#include "scheduler/scheduler.h"
#include "sim/duration_model.h"
#include "sim/run_cost.h"
#include "sim/sim_cluster.h"

namespace millrace::sim {

struct SimulationConfig {
  SimClusterConfig cluster;
  Pricing pricing;  // the workers' price and the currency; node pools carry their own prices
  scheduler::SchedulerOptions scheduler;
  std::uint64_t seed = 1;
  bool record_timeline = false;
  // Items without a prediction are predicted by the duration model itself (an oracle: what LPT
  // order would do knowing the recorded durations).
  bool predict_from_durations = false;
  // Fills SimulationResult::attempt_log; sweeps that only need the summary turn it off.
  bool keep_attempt_log = true;
};

struct WorkerUsage {
  std::string name;
  data::Micros busy = 0;   // in attempts that started on it
  data::Micros idle = 0;   // the rest of the makespan
  int attempts = 0;
};

// One node pool over the run: node time (up to the makespan) and the share of its capacity
// the pods' requests held, per resource.
struct PoolUsage {
  std::string name;
  double node_hours = 0;
  int nodes_at_end = 0;
  std::map<std::string, double> allocated;  // resource -> allocated / (capacity x node time)
  bool spot = false;
  InterruptionRate interruption_rate{};      // spot pools: its rate and where it came from
  std::size_t interrupted = 0;               // nodes taken back
};

struct SimulationResult {
  std::string policy;
  std::string order;
  std::uint64_t seed = 0;
  std::size_t items = 0;
  std::size_t succeeded = 0;
  std::size_t failed_items = 0;        // exhausted or blocked
  bool run_failed = false;
  bool stalled = false;                // events ran out with items unsettled (e.g. no slot left)
  data::Micros makespan = 0;           // end of the last attempt
  data::Micros critical_path = 0;      // lower bound: the work graph's, by the durations simulated
  int cap = 0;                         // attempts the policy lets run at once (workers, K)
  data::Micros busy = 0;               // sum over attempts
  double utilisation = 0;              // busy / (workers x makespan)
  double node_hours = 0;               // slot-time held by pods (pools: node time), in hours
  data::WaitSummary waits;             // submit -> first start, over [0, makespan]
  std::vector<PoolUsage> pools;        // with node pools
  std::optional<RunCost> cost;         // when the pools (or the workers) are priced
  std::map<std::string, std::size_t> waits_by_short_resource;  // pods that waited for room
  std::size_t nodes_interrupted = 0;   // spot nodes taken back, over the pools
  std::size_t attempts_interrupted = 0;  // attempts they took down (failed as node-lost)
  std::vector<SurvivalRisk> survival_risks;    // spot pools whose median item is more often interrupted than not
  std::uint64_t events = 0;            // engine events handled
  // The run's summary as every run gets it (data/run_summary.h): attempts, failures, workers'
  // busy time, the straggler tail; its span is the attempts' (first start to last end), where
  // makespan above counts from the simulation's time 0.
  data::RunSummary summary;
  std::vector<WorkerUsage> workers;    // by name
  std::vector<data::Attempt> attempt_log;  // every attempt, in the order they finished (if kept)
  std::vector<TimelineEntry> timeline;
  scheduler::StatusReport status;      // final status
};

// Takes the plan by value: a caller done with it moves it in.
SimulationResult simulate(std::vector<data::WorkItem> plan, const DurationModel& durations,
                          const SimulationConfig& config);
// The same on a plan already validated and shared (the replicas of a comparison), item i lasting
// durations[i]. config.predict_from_durations does not apply: the shared plan is not changed.
SimulationResult simulate(std::shared_ptr<const scheduler::PlannedWork> plan,
                          const std::vector<data::Micros>& durations, const SimulationConfig& config);

nlohmann::json to_json(const SimulationResult& result, bool with_timeline);
void print_table(const SimulationResult& result, std::ostream& out);

}  // namespace millrace::sim
