// Replay against the trace store: a recorded run read back as a plan plus recorded durations
// (same partition: each range's recorded duration as it is) with a summary of what really
// happened, and a simulated run written back as a run of its own (source=simulated, one attempt
// row per simulated attempt), so real and simulated runs compare side by side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/records.h"
#include "data/trace_store.h"
#include "sim/simulation.h"

namespace millrace::sim {

struct RecordedRun {
  data::Run run;
  std::vector<data::WorkItem> items;      // plan order
  std::vector<data::Attempt> attempts;
};

// What the recording itself says: workers, busy time, and the busiest worker (a fixed pool's
// makespan cannot be below its busiest worker's busy time).
struct RecordedSummary {
  std::size_t workers = 0;
  std::size_t attempts = 0;
  data::Micros busy = 0;                   // sum of attempt durations
  data::Micros busiest_worker = 0;         // largest per-worker busy time
  data::Micros span = 0;                   // last end - first start
};

// Reads run `id_or_name`; throws data::Error naming the store and the run when it is missing or
// has no items.
RecordedRun load_run(const data::TraceStore& store, const std::string& id_or_name);
RecordedSummary summarise(const std::vector<data::Attempt>& attempts);
nlohmann::json to_json(const RecordedSummary& summary);

// Writes the simulation of `source` as a new run and returns its id. `parameters` is the JSON
// object of the simulation's settings, stored with the run.
std::int64_t record_simulation(data::TraceStore& store, const data::Run& source,
                               const std::vector<data::WorkItem>& items, const SimulationResult& result,
                               const nlohmann::json& parameters);

}  // namespace millrace::sim
