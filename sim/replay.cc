#include "sim/replay.h"

#include "data/error.h"

namespace millrace::sim {

RecordedRun load_run(const data::TraceStore& store, const std::string& id_or_name) {
  RecordedRun recorded;
  recorded.run = store.run(store.find_run(id_or_name));
  recorded.items = store.items(recorded.run.id);
  recorded.attempts = store.attempts(recorded.run.id);
  if (recorded.items.empty()) {
    throw data::Error(store.path(), "run '" + id_or_name + "' has no items to simulate");
  }
  return recorded;
}

nlohmann::json to_json(const data::RunSummary& s) {
  return {{"workers", s.workers},
          {"attempts", s.attempts},
          {"busy_us", s.total_work},
          {"busiest_worker_us", s.busy_max},
          {"span_us", s.makespan},
          {"tail", data::to_json(s.tail)}};
}

std::int64_t record_simulation(data::TraceStore& store, const data::Run& source,
                               const std::vector<data::WorkItem>& items, const SimulationResult& result,
                               const nlohmann::json& parameters) {
  data::Run run;
  run.name = source.name + " simulated " + result.policy + " order " + result.order + " seed " +
             std::to_string(result.seed);
  run.source = data::RunSource::kSimulated;
  run.units = source.units;
  run.partitioner = source.partitioner;
  run.policy = result.policy;
  run.parameters = parameters.dump();
  run.started = 0;
  run.ended = result.makespan;
  return store.add_run(run, items, result.attempt_log);
}

}  // namespace millrace::sim
