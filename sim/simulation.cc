#include "sim/simulation.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "data/run_summary.h"
#include "sim/virtual_clock.h"

namespace millrace::sim {

namespace {

struct Dispatch {
  VirtualClock& clock;
  SimCluster& cluster;
  void operator()(const SimEvent& event) {
    if (event.kind == SimEvent::Kind::kTimer) {
      clock.fire(event);
    } else {
      cluster.handle(event);
    }
  }
};

using AttemptRecord = scheduler::Scheduler::AttemptRecord;

// The run's summary (data::summarize_spans, the one every run gets) from the scheduler's
// records: the attempts on named workers are the workers' (`on_worker[w]`: worker record w is one).
data::RunSummary summary_of(const scheduler::Scheduler& core, const std::vector<bool>& on_worker) {
  const std::vector<AttemptRecord>& log = core.attempt_records();
  std::vector<data::AttemptSpan> spans;
  spans.reserve(log.size());
  for (const AttemptRecord& a : log) {
    data::AttemptSpan span;
    span.item = a.item;
    if (a.worker != scheduler::Scheduler::kNoWorkerRecord && on_worker[a.worker]) span.worker = a.worker;
    span.start = a.start;
    span.end = a.end;
    span.outcome = a.outcome;
    spans.push_back(span);
  }
  std::vector<std::size_t> longest;
  data::RunSummary summary = data::summarize_spans(spans, core.items().size(), on_worker.size(), 5, longest);
  for (std::size_t position : longest) summary.longest.push_back(core.attempt(log[position]));
  return summary;
}

}  // namespace

SimulationResult simulate(std::vector<data::WorkItem> plan, const DurationModel& durations,
                          const SimulationConfig& config) {
  SimEngine engine;
  engine.reserve(plan.size() + 64);
  VirtualClock clock(engine);
  std::mt19937_64 rng(config.seed);
  // Each item's duration is asked of the model once, then looked up by the item's position in
  // the scheduler's plan (the cluster sees pointers into it).
  std::vector<data::Micros> duration_of;
  const data::WorkItem* first_item = nullptr;
  DurationModel by_position = [&](const data::WorkItem& item) { return duration_of[&item - first_item]; };
  SimCluster cluster(engine, config.cluster, by_position, rng, config.record_timeline);
  duration_of.reserve(plan.size());
  for (data::WorkItem& item : plan) {
    duration_of.push_back(durations(item));
    if (config.predict_from_durations && item.predicted == 0) item.predicted = duration_of.back();
  }
  scheduler::Scheduler core(std::move(plan), config.scheduler, cluster, clock);
  first_item = core.items().data();
  Dispatch dispatch{clock, cluster};
  core.start();

  SimulationResult result;
  result.events = engine.run(dispatch);
  result.policy = config.scheduler.policy;
  result.order = scheduler::to_string(config.scheduler.order);
  result.seed = config.seed;
  result.items = core.items().size();
  result.status = core.status();
  result.succeeded = result.status.num_succeeded;
  result.failed_items = result.status.jobs_failed.size();
  result.run_failed = core.run_failed();
  result.stalled = !core.finished();
  result.critical_path = core.graph().critical_path();
  const std::vector<AttemptRecord>& log = core.attempt_records();
  if (config.keep_attempt_log) result.attempt_log = core.attempts();
  std::vector<WorkerUsage> usage(core.worker_count());
  std::vector<bool> on_worker(core.worker_count(), false);
  for (std::uint32_t w = 0; w < usage.size(); ++w) {
    usage[w].name = core.worker_name(w);
    on_worker[w] = !usage[w].name.empty();
  }
  for (const AttemptRecord& a : log) {
    result.makespan = std::max(result.makespan, a.end);
    if (a.worker == scheduler::Scheduler::kNoWorkerRecord || !on_worker[a.worker]) continue;
    WorkerUsage& w = usage[a.worker];
    w.busy += a.end - a.start;
    ++w.attempts;
    result.busy += a.end - a.start;
  }
  for (WorkerUsage& w : usage) {
    if (w.attempts == 0) continue;
    w.idle = result.makespan - w.busy;
    result.workers.push_back(std::move(w));
  }
  std::sort(result.workers.begin(), result.workers.end(),
            [](const WorkerUsage& a, const WorkerUsage& b) { return a.name < b.name; });
  if (result.makespan > 0 && !result.workers.empty()) {
    result.utilisation = static_cast<double>(result.busy) /
                         (static_cast<double>(result.makespan) * static_cast<double>(result.workers.size()));
  }
  result.node_hours = static_cast<double>(cluster.slot_time()) / static_cast<double>(data::kMicrosPerHour);
  result.summary = summary_of(core, on_worker);
  if (config.record_timeline) result.timeline = cluster.timeline();
  return result;
}

nlohmann::json to_json(const SimulationResult& r, bool with_timeline) {
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerUsage& w : r.workers) {
    workers.push_back({{"name", w.name}, {"busy_us", w.busy}, {"idle_us", w.idle}, {"attempts", w.attempts}});
  }
  nlohmann::json out = {
      {"policy", r.policy},
      {"order", r.order},
      {"seed", r.seed},
      {"items", r.items},
      {"succeeded", r.succeeded},
      {"failed_items", r.failed_items},
      {"run_failed", r.run_failed},
      {"stalled", r.stalled},
      {"makespan_us", r.makespan},
      {"critical_path_us", r.critical_path},
      {"busy_us", r.busy},
      {"utilisation", r.utilisation},
      {"node_hours", r.node_hours},
      {"attempts", r.summary.attempts},
      {"failed_attempts", r.summary.failed_attempts},
      {"events", r.events},
      {"tail", data::to_json(r.summary.tail)},
      {"workers", workers},
      {"status", scheduler::to_json(r.status)},
  };
  if (with_timeline) {
    nlohmann::json timeline = nlohmann::json::array();
    for (const TimelineEntry& e : r.timeline) {
      timeline.push_back({{"at_us", e.at}, {"event", to_string(e.kind)}, {"attempt", e.handle}, {"slot", e.slot}});
    }
    out["timeline"] = timeline;
  }
  return out;
}

void print_table(const SimulationResult& r, std::ostream& out) {
  const data::RunSummary& s = r.summary;
  char line[160];
  auto row = [&](const char* key, const std::string& value) {
    std::snprintf(line, sizeof line, "%-28s %s\n", key, value.c_str());
    out << line;
  };
  auto number = [](double v, const char* format) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  row("policy", r.policy + " (order " + r.order + ", seed " + std::to_string(r.seed) + ")");
  row("items", std::to_string(r.items) + " (" + std::to_string(r.succeeded) + " succeeded, " +
                   std::to_string(r.failed_items) + " failed" + (r.stalled ? ", STALLED" : "") + ")");
  row("attempts", std::to_string(r.summary.attempts) + " (" + std::to_string(r.summary.failed_attempts) + " failed)");
  row("makespan", data::duration_text(r.makespan));
  row("critical path (lower bound)", data::duration_text(r.critical_path));
  row("workers", std::to_string(s.workers));
  if (s.workers > 0) {
    row("worker busy min/median/max", data::duration_text(s.busy_min) + " / " + data::duration_text(s.busy_median) +
                                          " / " + data::duration_text(s.busy_max));
  }
  row("busy worker-hours", number(data::seconds_from_micros(r.busy) / 3600, "%.2f"));
  row("utilisation", number(100 * r.utilisation, "%.1f %%"));
  row("node-hours (pod slot time)", number(r.node_hours, "%.2f"));
  for (const data::TailRow& tail : data::tail_rows(r.summary.tail)) row(tail.label, tail.value);
  row("events", std::to_string(r.events));
}

}  // namespace millrace::sim
