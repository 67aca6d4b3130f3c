#include "sim/cluster_fidelity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "data/queue_waits.h"
#include "data/readable_duration.h"
#include "scheduler/planned_work.h"
#include "sim/simulation.h"

namespace millrace::sim {

namespace {

using data::Micros;

WaitFigures figures_of(std::vector<Micros> waits, Micros makespan) {
  WaitFigures f;
  f.items = waits.size();
  f.makespan = makespan;
  if (waits.empty()) return f;
  std::sort(waits.begin(), waits.end());
  f.p50 = data::nearest_rank(waits, 0.5);
  f.p90 = data::nearest_rank(waits, 0.9);
  f.p99 = data::nearest_rank(waits, 0.99);
  return f;
}

// Each item's wait (by item id) and the makespan, recorded and replayed with `model`.
struct Waits {
  std::unordered_map<std::string, Micros> recorded, replayed;
  Micros recorded_makespan = 0, replayed_makespan = 0;
};

Waits replay(const Recording& recording, const data::ClusterModel& model, std::uint64_t seed) {
  const std::vector<ItemTrace> traces = item_traces(recording);
  Waits w;
  if (traces.empty()) return w;
  Micros base = traces.front().submitted;
  for (const ItemTrace& t : traces) base = std::min(base, t.submitted);
  std::vector<data::WorkItem> items;
  std::vector<Micros> durations;
  for (const ItemTrace& t : traces) {
    data::WorkItem item = *t.item;
    item.submit_at = t.submitted - base;
    item.depends_on.clear();
    items.push_back(std::move(item));
    durations.push_back(t.work);
    w.recorded[t.item->id] = std::max<Micros>(0, t.started - t.submitted);
    w.recorded_makespan = std::max(w.recorded_makespan, t.ended - base);
  }
  SimulationConfig config = recording.capacity;
  config.cluster.fitted = std::make_shared<const data::ClusterModel>(model);
  config.seed = seed;
  config.keep_attempt_log = true;
  auto plan = std::make_shared<const scheduler::PlannedWork>(items, config.scheduler.plan_name);
  const SimulationResult result = simulate(plan, durations, config);
  for (const data::Attempt& a : result.attempt_log) {
    auto [at, added] = w.replayed.try_emplace(a.item_id, a.start);
    if (!added) at->second = std::min(at->second, a.start);
  }
  for (const data::WorkItem& item : items) {
    auto found = w.replayed.find(item.id);
    if (found != w.replayed.end()) found->second = std::max<Micros>(0, found->second - item.submit_at);
  }
  w.replayed_makespan = result.makespan;
  return w;
}

std::vector<Micros> waits_of(const std::unordered_map<std::string, Micros>& waits,
                             const std::unordered_set<std::string>* only) {
  std::vector<Micros> out;
  for (const auto& [id, wait] : waits) {
    if (only == nullptr || only->count(id) > 0) out.push_back(wait);
  }
  return out;
}

std::string figures_text(const WaitFigures& f) {
  return "makespan " + data::readable_duration(f.makespan) + ", wait p50 " + data::readable_duration(f.p50) + ", p90 " +
         data::readable_duration(f.p90) + ", p99 " + data::readable_duration(f.p99);
}

nlohmann::json figures_json(const WaitFigures& f) {
  return {{"items", f.items}, {"makespan_us", f.makespan}, {"wait_p50_us", f.p50}, {"wait_p90_us", f.p90},
          {"wait_p99_us", f.p99}};
}

// How many times the later items' recorded wait p90 is the forecast one (or its inverse, the
// larger of the two over the smaller), when they differ by at least kDriftRatio and a second:
// the later part of the recording waited otherwise than the earlier part foretold.
constexpr double kDriftRatio = 1.5;

std::optional<double> drift_of(const ClusterFidelity& f) {
  if (f.fitted_items == 0 || f.later_recorded.items == 0) return std::nullopt;
  const auto recorded = static_cast<double>(f.later_recorded.p90);
  const auto forecast = static_cast<double>(f.later_replayed.p90);
  if (std::abs(recorded - forecast) < static_cast<double>(data::kMicrosPerSecond)) return std::nullopt;
  const double ratio = std::max(recorded, forecast) / std::max(1.0, std::min(recorded, forecast));
  if (ratio < kDriftRatio) return std::nullopt;
  return ratio;
}

}  // namespace

ClusterFidelity check_cluster_fidelity(const Recording& recording, const data::ClusterModel& model,
                                       const ClusterFitOptions& options, std::uint64_t seed) {
  ClusterFidelity fidelity;
  fidelity.run = recording.name;
  const Waits whole = replay(recording, model, seed);
  fidelity.recorded = figures_of(waits_of(whole.recorded, nullptr), whole.recorded_makespan);
  fidelity.replayed = figures_of(waits_of(whole.replayed, nullptr), whole.replayed_makespan);

  const Recording early = earliest(recording, fidelity.fitted_share);
  fidelity.fitted_items = early.items.size();
  if (early.items.empty() || early.attempts.empty()) return fidelity;
  const ClusterFit early_fit = fit_cluster({early}, options);
  std::unordered_set<std::string> later;
  for (const data::WorkItem& item : recording.items) later.insert(item.id);
  for (const data::WorkItem& item : early.items) later.erase(item.id);
  const Waits forecast = replay(recording, early_fit.model, seed);
  fidelity.later_recorded = figures_of(waits_of(forecast.recorded, &later), forecast.recorded_makespan);
  fidelity.later_replayed = figures_of(waits_of(forecast.replayed, &later), forecast.replayed_makespan);
  return fidelity;
}

std::string format_cluster_fidelity(const ClusterFidelity& f) {
  std::ostringstream out;
  out << "cluster fidelity on run " << f.run << " (its items' recorded work replayed on its capacity, with placement,\n"
      << "  start-up and failures drawn from the fitted cluster; `simulate --run` replays the recorded\n"
      << "  attempts and failures instead, from the recording's time 0):\n"
      << "  recorded (first submit to last end): " << figures_text(f.recorded) << "\n"
      << "  replayed: " << figures_text(f.replayed) << "\n";
  if (f.fitted_items > 0) {
    out << "  held out in time (fitted on the first " << f.fitted_items << " items by submission, forecasting the "
        << f.later_recorded.items << " after them):\n"
        << "    recorded: " << figures_text(f.later_recorded) << "\n"
        << "    forecast: " << figures_text(f.later_replayed) << "\n";
    if (const std::optional<double> drift = drift_of(f)) {
      char times[32];
      std::snprintf(times, sizeof times, "%.1fx", *drift);
      out << "  the cluster's behaviour drifted over the recording: its later items waited p90 "
          << data::readable_duration(f.later_recorded.p90) << " where the earlier ones forecast "
          << data::readable_duration(f.later_replayed.p90) << " (" << times << (f.later_recorded.p90 > f.later_replayed.p90 ? " longer" : " shorter")
          << "); the fitted cluster describes the recorded conditions as a whole, and its band covers those only\n";
    }
  }
  return out.str();
}

nlohmann::json to_json(const ClusterFidelity& f) {
  return {{"run", f.run},
          {"recorded", figures_json(f.recorded)},
          {"replayed", figures_json(f.replayed)},
          {"held_out", {{"fitted_share", f.fitted_share},
                        {"fitted_items", f.fitted_items},
                        {"recorded", figures_json(f.later_recorded)},
                        {"forecast", figures_json(f.later_replayed)},
                        {"drift_p90_ratio", drift_of(f) ? nlohmann::json(*drift_of(f)) : nlohmann::json(nullptr)}}}};
}

}  // namespace millrace::sim
