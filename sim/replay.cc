#include "sim/replay.h"

#include <algorithm>
#include <unordered_set>

#include "data/error.h"
#include "data/readable_duration.h"

namespace millrace::sim {

RecordedRun load_run(const data::TraceStore& store, const std::string& id_or_name) {
  RecordedRun recorded;
  recorded.run = store.run(store.find_run(id_or_name));
  recorded.items = store.items(recorded.run.id);
  recorded.attempts = store.attempts(recorded.run.id);
  recorded.node_arrivals = store.node_arrivals(recorded.run.id);
  recorded.node_arrivals_unrecorded = store.node_arrivals_unrecorded(recorded.run.id);
  if (recorded.items.empty()) {
    throw data::Error(store.path(), "run '" + id_or_name + "' has no items to simulate");
  }
  return recorded;
}

ReplayPlan replay_plan(const RecordedRun& recorded) {
  ReplayPlan plan;
  std::unordered_map<std::string, std::vector<const data::Attempt*>> tries;
  for (const data::Attempt& a : recorded.attempts) tries[a.item_id].push_back(&a);
  std::unordered_set<std::string> left_out;
  for (const data::WorkItem& item : recorded.items) {
    auto found = tries.find(item.id);
    if (found == tries.end()) {
      ++plan.never_started;
      if (item.predicted > 0) {
        plan.durations[item.id] = item.predicted;
        plan.items.push_back(item);
      } else {
        ++plan.skipped;
        left_out.insert(item.id);
      }
      continue;
    }
    std::vector<const data::Attempt*>& attempts = found->second;
    std::stable_sort(attempts.begin(), attempts.end(),
                     [](const data::Attempt* a, const data::Attempt* b) { return a->number < b->number; });
    const data::Attempt* chosen = attempts.back();
    bool any_failure = false;
    for (const data::Attempt* a : attempts) {
      if (a->outcome == data::Outcome::kSucceeded) chosen = a;
      any_failure = any_failure || a->outcome == data::Outcome::kFailed || a->outcome == data::Outcome::kCancelled;
    }
    plan.durations[item.id] = chosen->duration();
    plan.still_running += attempts.back()->outcome == data::Outcome::kRunning;
    if (any_failure) {
      std::vector<RecordedEnd>& ends = plan.recorded_ends[item.id];
      for (const data::Attempt* a : attempts) {
        const bool failed = a->outcome == data::Outcome::kFailed || a->outcome == data::Outcome::kCancelled;
        std::string reason = a->failure_reason.empty() ? data::to_string(a->outcome) : a->failure_reason;
        ends.push_back(RecordedEnd{a->duration(), failed ? reason : std::string(), failed ? a->exit_code : 0});
      }
      plan.failed += ends.back().reason.empty() ? 0 : 1;
    }
    plan.items.push_back(item);
  }
  if (!left_out.empty()) {
    for (data::WorkItem& item : plan.items) {
      std::erase_if(item.depends_on, [&](const std::string& id) { return left_out.count(id) > 0; });
    }
  }
  return plan;
}

std::string replay_warnings(const ReplayPlan& plan, const std::string& run_name) {
  std::string text;
  if (plan.skipped > 0) {
    text += "warning: " + run_name + ": " + std::to_string(plan.skipped) + " of " +
            data::counted(static_cast<std::int64_t>(plan.never_started), "item") +
            (plan.never_started == 1 ? " never started and has" : " never started and have") +
            " no predicted duration: left out of the simulation\n";
  }
  if (plan.never_started > plan.skipped) {
    text += "warning: " + run_name + ": " + data::counted(static_cast<std::int64_t>(plan.never_started - plan.skipped), "item") +
            " never started: simulated with their predicted durations\n";
  }
  if (plan.still_running > 0) {
    text += "warning: " + run_name + ": " + data::counted(static_cast<std::int64_t>(plan.still_running), "item") +
            (plan.still_running == 1 ? " was" : " were") + " still running when recorded: replayed with the time "
            "they had run\n";
  }
  if (plan.failed > 0) {
    text += "note: " + run_name + ": " + data::counted(static_cast<std::int64_t>(plan.failed), "item") +
            " failed in the recording: replayed as failures with their recorded reasons\n";
  }
  return text;
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
  run.name = source.name + " simulated " + result.policy + " cap " + std::to_string(result.cap);
  if (parameters.contains("node_pools")) {
    run.name += " pools " + parameters["node_pools"].get<std::string>() + " " + parameters["placement"].get<std::string>();
  } else if (parameters.contains("machine")) {
    run.name += " nodes " + parameters["nodes"].dump() + "x" + parameters["machine"].get<std::string>() + " " +
                parameters["placement"].get<std::string>();
  } else if (parameters.contains("nodes")) {
    run.name += " nodes " + parameters["nodes"].dump() + "x" + parameters.value("slots_per_node", nlohmann::json(1)).dump();
  }
  if (parameters.contains("type_limits") && !parameters["type_limits"].empty()) {
    for (const auto& [type, cap] : parameters["type_limits"].items()) run.name += " " + type + "<=" + cap.dump();
  }
  if (parameters.value("fail_prob", 0.0) > 0) run.name += " fail " + parameters["fail_prob"].dump();
  run.name = store.unused_run_name(run.name + " order " + result.order + " seed " + std::to_string(result.seed));
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
