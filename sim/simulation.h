// One simulated run: the scheduler core, a SimCluster and a VirtualClock on one event engine,
// driven until nothing is left to happen, then summarised: makespan against the critical path,
// per-worker busy and idle time, utilisation, node-hours, attempts and failures, the straggler
// tail, and (on request) the timeline of cluster events.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/records.h"
#include "data/run_summary.h"
#include "scheduler/scheduler.h"
#include "sim/duration_model.h"
#include "sim/sim_cluster.h"

namespace millrace::sim {

struct SimulationConfig {
  SimClusterConfig cluster;
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
  data::Micros critical_path = 0;      // lower bound by predicted durations
  data::Micros busy = 0;               // sum over attempts
  double utilisation = 0;              // busy / (workers x makespan)
  double node_hours = 0;               // slot-time held by pods, in hours
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

nlohmann::json to_json(const SimulationResult& result, bool with_timeline);
void print_table(const SimulationResult& result, std::ostream& out);

}  // namespace millrace::sim
