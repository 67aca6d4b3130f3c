// Replay against the trace store: a recorded run read back as a plan plus recorded durations
// (same partition: each range's recorded duration as it is) with a summary of what really
// happened, and a simulated run written back as a run of its own (source=simulated, one attempt
// row per simulated attempt), so real and simulated runs compare side by side.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/records.h"
#include "data/run_summary.h"
#include "data/trace_store.h"
#include "sim/simulation.h"

namespace millrace::sim {

struct RecordedRun {
  data::Run run;
  std::vector<data::WorkItem> items;      // plan order
  std::vector<data::Attempt> attempts;
  std::vector<data::NodeArrival> node_arrivals;  // nodes that joined its cluster while it ran
  std::string node_arrivals_unrecorded;          // why a run that watched for them has none
};

// Reads run `id_or_name`; throws data::Error naming the store and the run when it is missing or
// has no items.
RecordedRun load_run(const data::TraceStore& store, const std::string& id_or_name);
// A recorded run as the simulator replays it: every item with a recorded attempt takes its
// recorded duration (the last succeeded attempt's, else the last one's); an item whose
// recording has failed attempts fails as they did (their reasons and exit codes, attempt by
// attempt); an item never started is simulated when it has a predicted duration and otherwise
// left out of the plan (dependencies on it dropped), counted in `skipped` for a warning.
struct ReplayPlan {
  std::vector<data::WorkItem> items;
  std::unordered_map<std::string, data::Micros> durations;
  std::unordered_map<std::string, std::vector<RecordedEnd>> recorded_ends;
  std::size_t never_started = 0;   // of which predicted (simulated) or skipped
  std::size_t skipped = 0;
  std::size_t still_running = 0;   // items whose last recorded attempt was still running: replayed
                                   // with the duration it had run so far
  std::size_t failed = 0;          // items with recorded failures, replayed as failures
};
ReplayPlan replay_plan(const RecordedRun& recorded);
// One line per count above that is not 0, for stderr ("" when there is nothing to say).
std::string replay_warnings(const ReplayPlan& plan, const std::string& run_name);

// What the recording itself says (data::summarize) as simulate's JSON reports it: workers,
// attempts, busy time, the busiest worker (a fixed pool's makespan cannot be below its busiest
// worker's busy time), the span and the straggler tail, in the simulated run's terms.
nlohmann::json to_json(const data::RunSummary& recorded);

// Writes the simulation of `source` as a new run and returns its id. `parameters` is the JSON
// object of the simulation's settings, stored with the run. The run is named after the source and
// the settings; a name already in the store gets " (2)", " (3)", ... (run names are unique).
std::int64_t record_simulation(data::TraceStore& store, const data::Run& source,
                               const std::vector<data::WorkItem>& items, const SimulationResult& result,
                               const nlohmann::json& parameters);

}  // namespace millrace::sim
