#include "cli/recorded_observations.h"

#include <sstream>


namespace millrace::cli {

RecordedObservations recorded_observations(const data::TraceStore& store, const std::string& run_keys) {
  RecordedObservations recorded;
  std::istringstream keys(run_keys);
  for (std::string key; std::getline(keys, key, ',');) {
    const data::Run run = store.run(store.find_run(key));
    const std::vector<data::Observation> more = data::observations_of(store.items(run.id), store.attempts(run.id), recorded.runs.size());
    recorded.observations.insert(recorded.observations.end(), more.begin(), more.end());
    recorded.units = run.units;
    recorded.names += (recorded.names.empty() ? "" : ",") + run.name;
    recorded.runs.push_back(run);
  }
  return recorded;
}

}  // namespace millrace::cli
