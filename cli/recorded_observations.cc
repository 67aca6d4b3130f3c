#include "cli/recorded_observations.h"

#include <sstream>

#include "data/error.h"

namespace millrace::cli {

namespace {

// A run given by id or by name.
data::Run find_run(const data::TraceStore& store, const std::string& key) {
  for (const data::Run& run : store.runs()) {
    if (run.name == key || std::to_string(run.id) == key) return run;
  }
  throw data::Error(store.path(), "no run '" + key + "' (give a run id or name)");
}

}  // namespace

RecordedObservations recorded_observations(const data::TraceStore& store, const std::string& run_keys) {
  RecordedObservations recorded;
  std::istringstream keys(run_keys);
  for (std::string key; std::getline(keys, key, ',');) {
    const data::Run run = find_run(store, key);
    const std::vector<data::Observation> more = data::observations_of(store.items(run.id), store.attempts(run.id));
    recorded.observations.insert(recorded.observations.end(), more.begin(), more.end());
    recorded.units = run.units;
    recorded.names += (recorded.names.empty() ? "" : ",") + run.name;
    recorded.runs.push_back(run);
  }
  return recorded;
}

}  // namespace millrace::cli
