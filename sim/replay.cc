#include "sim/replay.h"

#include <algorithm>
#include <map>

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

RecordedSummary summarise(const std::vector<data::Attempt>& attempts) {
  RecordedSummary s;
  std::map<std::string, data::Micros> per_worker;
  data::Micros first = 0;
  data::Micros last = 0;
  for (const data::Attempt& a : attempts) {
    if (s.attempts == 0 || a.start < first) first = a.start;
    if (s.attempts == 0 || a.end > last) last = a.end;
    ++s.attempts;
    s.busy += a.duration();
    per_worker[a.worker] += a.duration();
  }
  s.workers = per_worker.size();
  for (const auto& entry : per_worker) s.busiest_worker = std::max(s.busiest_worker, entry.second);
  s.span = last - first;
  return s;
}

nlohmann::json to_json(const RecordedSummary& s) {
  return {{"workers", s.workers},
          {"attempts", s.attempts},
          {"busy_us", s.busy},
          {"busiest_worker_us", s.busiest_worker},
          {"span_us", s.span}};
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
