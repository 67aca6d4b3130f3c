#include "sim/simulation.h"

#include <algorithm>
#include <iomanip>
#include <cstdio>
#include <ostream>

#include "data/error.h"
#include "data/run_summary.h"
#include "data/run_tally.h"
#include "sim/virtual_clock.h"

namespace millrace::sim {

namespace {

// Spot nodes would go on being taken back and replaced for ever: once every item is settled (or
// the run stopped), their interruptions are let pass.
struct Dispatch {
  VirtualClock& clock;
  SimCluster& cluster;
  const scheduler::Scheduler& core;
  void operator()(const SimEvent& event) {
    if (event.kind == SimEvent::Kind::kTimer) {
      clock.fire(event);
    } else if (event.kind != SimEvent::Kind::kNodeInterrupted || !(core.finished() || core.stopped())) {
      cluster.handle(event);
    }
    cluster.run_due_starts();
  }
};

// The run's summary, tallied as the attempts ended (data::RunTally, the one every run gets).
data::RunSummary summary_of(const scheduler::Scheduler& core, const data::RunTally& tally) {
  data::RunSummary summary = tally.summary();
  summary.work_time = core.work_time();
  for (const auto& [span, position] : tally.longest()) summary.longest.push_back(core.attempt(span, position));
  return summary;
}

// Each item's wait from its submit time to the start of its first attempt: the first starts,
// turned into the waits of the items that started in place.
data::WaitSummary waits_of(const scheduler::PlannedWork& plan, std::vector<data::Micros> waits,
                           data::Micros makespan) {
  std::size_t started = 0;
  for (std::size_t i = 0; i < waits.size(); ++i) {
    if (waits[i] != data::RunTally::kNotStarted) waits[started++] = waits[i] - plan.submit_at(i);
  }
  waits.resize(started);
  return data::summarize_wait_times(std::move(waits), 0, makespan);
}

// "3 nodes taken back (spot: 0.05/node-hour typed), 5 attempts lost and retried"; "" without spot pools.
std::string interruptions_text(const SimulationResult& r) {
  std::string rates;
  for (const PoolUsage& p : r.pools) {
    if (!p.spot) continue;
    const std::optional<NodeLifetime>& lifetime = p.interruption_rate.lifetime;
    char rate[64];
    std::snprintf(rate, sizeof rate, lifetime ? "%.3g/node-hour" : "%g/node-hour", p.interruption_rate.per_node_hour);
    rates += (rates.empty() ? "" : "; ") + p.name + " " + std::to_string(p.interrupted) + " at " +
             (lifetime ? "lifetime " + lifetime->text + " (" + rate + " on average)" : rate) + " " +
             p.interruption_rate.source;
  }
  if (rates.empty()) return "";
  return data::counted(static_cast<std::int64_t>(r.nodes_interrupted), "node") + " taken back (" + rates + "), " +
         data::counted(static_cast<std::int64_t>(r.attempts_interrupted), "attempt") + " lost with them";
}

}  // namespace

SimulationResult simulate(std::vector<data::WorkItem> plan, const DurationModel& durations,
                          const SimulationConfig& config) {
  // Each item's duration is asked of the model once, then looked up by the item's position.
  std::vector<data::Micros> duration_of;
  duration_of.reserve(plan.size());
  for (data::WorkItem& item : plan) {
    duration_of.push_back(durations(item));
    if (config.predict_from_durations && item.predicted == 0) item.predicted = duration_of.back();
  }
  auto work = std::make_shared<const scheduler::PlannedWork>(plan, config.scheduler.plan_name);
  plan.clear();
  plan.shrink_to_fit();  // the columns hold the plan now
  return simulate(std::move(work), duration_of, config);
}

SimulationResult simulate(std::shared_ptr<const scheduler::PlannedWork> plan,
                          const std::vector<data::Micros>& durations, const SimulationConfig& config) {
  if (durations.size() != plan->size()) {
    throw data::Error(config.scheduler.plan_name, "has " + std::to_string(plan->size()) + " items but " +
                                                      std::to_string(durations.size()) + " durations");
  }
  SimEngine engine;
  VirtualClock clock(engine);
  std::mt19937_64 rng(config.seed);
  std::mt19937_64 interruption_rng(interruption_seed(config.seed));
  // The cluster sees the items by position, as the durations are.
  SimCluster cluster(engine, config.cluster, durations, rng, interruption_rng, config.record_timeline);
  std::vector<SurvivalRisk> survival_risks = cluster.check_placeable(*plan);
  // The lower bound by the durations simulated: the work graph's critical path of them (submit
  // times included), whatever the items' own predictions.
  const data::Micros lower_bound = plan->graph().critical_path(*plan, durations);
  // On node pools a node runs several pods at once: the straggler tail's share is of the most
  // pods running at once, not of the nodes.
  data::RunTally tally(plan->size(), 5,
                       cluster.pool_nodes() == nullptr ? data::RunTally::Sweep::kWorkers
                                                       : data::RunTally::Sweep::kWorkersAndPods);
  scheduler::Scheduler core(std::move(plan), config.scheduler, cluster, clock);
  core.tally_attempts(tally, config.keep_attempt_log);
  Dispatch dispatch{clock, cluster, core};
  cluster.defer_due_starts();
  core.start();
  cluster.run_due_starts();
  cluster.watch_start_nodes();

  SimulationResult result;
  result.survival_risks = std::move(survival_risks);
  result.events = engine.run(dispatch) + cluster.folded_events() + cluster.starts_without_event();
  result.policy = config.scheduler.policy;
  result.order = scheduler::to_string(config.scheduler.order);
  result.seed = config.seed;
  result.items = core.plan().size();
  result.status = core.status();
  result.succeeded = result.status.num_succeeded;
  result.failed_items = result.status.jobs_failed.size();
  result.run_failed = core.run_failed();
  result.stalled = !core.finished();
  result.critical_path = lower_bound;
  result.cap = config.scheduler.params.max_in_flight;
  if (config.keep_attempt_log) result.attempt_log = core.attempts();
  result.makespan = tally.last_end();
  std::vector<WorkerUsage> usage(core.worker_count());
  for (std::uint32_t w = 0; w < usage.size(); ++w) usage[w].name = core.worker_name(w);
  for (std::size_t w = 0; w < tally.worker_slots(); ++w) {
    WorkerUsage& worker = usage[w];
    worker.busy = tally.worker_busy(w);
    worker.attempts = tally.worker_attempts(w);
    result.busy += worker.busy;
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
  result.summary = summary_of(core, tally);
  result.waits = waits_of(core.plan(), tally.take_first_starts(), result.makespan);
  if (const PoolNodes* nodes = cluster.pool_nodes()) {
    result.node_hours = 0;
    double allocated = 0, offered = 0;  // of the first resource ("cpu" when pools have it)
    for (std::size_t p = 0; p < nodes->pool_count(); ++p) {
      PoolUsage pool{nodes->pool(p).name, 0, nodes->up_nodes(p), {}};
      pool.spot = nodes->pool(p).spot;
      pool.interruption_rate = cluster.interruption_rates()[p];
      pool.interrupted = cluster.nodes_interrupted()[p];
      result.nodes_interrupted += pool.interrupted;
      const double node_time = static_cast<double>(nodes->node_time(p, result.makespan));
      pool.node_hours = node_time / static_cast<double>(data::kMicrosPerHour);
      result.node_hours += pool.node_hours;
      for (std::size_t r = 0; r < nodes->resources().size(); ++r) {
        const double capacity_time = static_cast<double>(nodes->capacity(p)[r]) * node_time;
        if (capacity_time > 0) pool.allocated[nodes->resources()[r]] = nodes->allocated_time(p, r) / capacity_time;
        if (r == 0) {
          allocated += nodes->allocated_time(p, r);
          offered += capacity_time;
        }
      }
      result.pools.push_back(std::move(pool));
    }
    result.utilisation = offered > 0 ? allocated / offered : 0;
    result.waits_by_short_resource = cluster.waits_by_short_resource();
    result.attempts_interrupted = cluster.attempts_interrupted();
    result.summary.tail = tally.pods_tail();
  }
  const int slots = config.cluster.nodes * std::max(1, config.cluster.slots_per_node);
  result.cost = run_cost(config.cluster, config.pricing, cluster.pool_nodes(), std::min(result.cap, slots),
                         result.makespan);
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
      {"cap", r.cap},
      {"waits", data::to_json(r.waits)},
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
  if (!r.pools.empty()) {
    nlohmann::json pools = nlohmann::json::array();
    for (const PoolUsage& p : r.pools) {
      pools.push_back({{"name", p.name}, {"node_hours", p.node_hours}, {"nodes_at_end", p.nodes_at_end},
                       {"allocated", p.allocated}});
      if (p.spot) {
        pools.back()["spot"] = {{"interruption_rate", p.interruption_rate.per_node_hour},
                                {"interruption_rate_source", p.interruption_rate.source},
                                {"nodes_interrupted", p.interrupted}};
        if (p.interruption_rate.lifetime) pools.back()["spot"]["lifetime"] = p.interruption_rate.lifetime->text;
      }
    }
    out["nodes_interrupted"] = r.nodes_interrupted;
    out["attempts_interrupted"] = r.attempts_interrupted;
    out["pools"] = pools;
    out["waits_by_short_resource"] = r.waits_by_short_resource;
  }
  if (r.cost) out["cost"] = to_json(*r.cost);
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
  auto row = [&](const char* key, const std::string& value) {
    out << std::left << std::setw(28) << key << std::right << " " << value << "\n";
  };
  auto number = [](double v, const char* format) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  row("policy", r.policy + " (order " + r.order + ", seed " + std::to_string(r.seed) + ")");
  row("items", data::grouped(static_cast<std::int64_t>(r.items)) + " (" + data::grouped(static_cast<std::int64_t>(r.succeeded)) +
                   " succeeded, " + data::grouped(static_cast<std::int64_t>(r.failed_items)) + " failed" +
                   (r.stalled ? ", STALLED" : "") + ")");
  row("attempts", data::grouped(static_cast<std::int64_t>(r.summary.attempts)) + " (" +
                      data::grouped(static_cast<std::int64_t>(r.summary.failed_attempts)) + " failed)");
  row("makespan", data::duration_text(r.makespan));
  row("critical path (lower bound)", data::duration_text(r.critical_path));
  row("queue wait (submit->start)", data::waits_text(r.waits));
  if (r.pools.empty()) {
    row("workers", std::to_string(r.cap) + " (cap; " + std::to_string(s.workers) + " ran attempts)");
  } else {
    row("concurrency cap", std::to_string(r.cap));
    for (const PoolUsage& p : r.pools) {
      std::string held;
      for (const auto& [resource, share] : p.allocated) held += ", " + resource + number(100 * share, " %.1f %%");
      row(("pool " + p.name).c_str(),
          data::node_time(p.node_hours) + ", " + data::counted(p.nodes_at_end, "node") + " at the end" + held);
    }
    std::string short_text;
    for (const auto& [resource, pods] : r.waits_by_short_resource) {
      short_text += (short_text.empty() ? "" : ", ") + resource + " " + std::to_string(pods);
    }
    if (!short_text.empty()) row("pods that waited for room", short_text);
    if (const std::string spot = interruptions_text(r); !spot.empty()) row("spot interruptions", spot);
  }
  if (s.workers > 0) {
    // On node pools the attempts run on nodes, several at once: a node's busy time is the sum of
    // its pods' times and may exceed the makespan.
    row(r.pools.empty() ? "worker busy min/median/max" : "node pod-time min/med/max",
        data::readable_duration(s.busy_min) + " / " + data::readable_duration(s.busy_median) + " / " +
            data::readable_duration(s.busy_max) + (r.pools.empty() ? "" : " (summed over a node's pods at once)"));
  }
  row("busy", data::node_time(data::seconds_from_micros(r.busy) / 3600, "worker"));
  row(r.pools.empty() ? "utilisation" : "utilisation (first resource)", number(100 * r.utilisation, "%.1f %%"));
  row(r.pools.empty() ? "held (worker slots)" : "node-hours (pools)",
      data::node_time(r.node_hours, r.pools.empty() ? "slot" : "node"));
  for (const data::TailRow& tail : data::tail_rows(r.summary.tail)) row(tail.label, tail.value);
  row("events", std::to_string(r.events));
}

}  // namespace millrace::sim
