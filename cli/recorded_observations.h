// The recorded runs a cost model is fitted from, read once for every command that fits one:
// `millrace fit --runs` and `compare`/`plan --fit-runs` (runs given by id or name, comma-separated;
// each run's observations as data::observations_of reads them).
#pragma once

#include <string>
#include <vector>

#include "data/cost_model_fit.h"
#include "data/records.h"
#include "data/trace_store.h"

namespace millrace::cli {

struct RecordedObservations {
  std::vector<data::Run> runs;
  std::vector<data::Observation> observations;
  std::string units;  // the last run's
  std::string names;  // the runs' names, comma-separated
};

// Throws data::Error naming the store for a run it does not hold.
RecordedObservations recorded_observations(const data::TraceStore& store, const std::string& run_keys);

}  // namespace millrace::cli
