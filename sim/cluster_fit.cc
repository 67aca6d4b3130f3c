#include "sim/cluster_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "data/error.h"
#include "data/readable_duration.h"
#include "sim/interruption_fit.h"

namespace millrace::sim {

namespace {

using data::Micros;

// Values per item type and all of them, each known exactly or only to lie in an interval.
struct Observed {
  struct Values {
    std::vector<data::CensoredValue> values;
    std::size_t exact = 0;
    std::size_t size() const { return values.size(); }
    data::EmpiricalQuantiles quantiles() const {
      if (exact < values.size()) return data::EmpiricalQuantiles::of_interval_censored(values);
      std::vector<double> points;
      for (const data::CensoredValue& v : values) points.push_back(v.low);
      return data::EmpiricalQuantiles::of(std::move(points));
    }
    void add(data::CensoredValue v) {
      values.push_back(v);
      exact += v.low == v.high;
    }
  };
  Values all;
  std::map<std::string, Values> by_type;

  void add(const std::string& type, double value) { add(type, {value, value}); }
  void add(const std::string& type, data::CensoredValue value) {
    all.add(value);
    by_type[type].add(value);
  }
};

data::TypedDelays delays_of(const Observed& observed, const ClusterFitOptions& options, const std::string& why_none) {
  data::TypedDelays delays;
  if (observed.all.exact == 0) {
    delays.unidentified = observed.all.values.empty() ? why_none
                                                      : "every observation is only bounded (each waited for capacity)";
    return delays;
  }
  delays.pooled = observed.all.quantiles();
  if (observed.by_type.size() > 1) {
    for (const auto& [type, values] : observed.by_type) {
      if (values.size() >= options.min_per_type && values.exact > 0) delays.by_type[type] = values.quantiles();
    }
  }
  return delays;
}

// Whether `asks` fits in what is left of `capacity` with `used` held (a resource absent holds none).
bool fits(const data::Quantities& asks, const data::Quantities& capacity, const data::Quantities& used) {
  for (const auto& [resource, amount] : asks) {
    const auto has = capacity.find(resource);
    const auto held = used.find(resource);
    const std::int64_t left = (has == capacity.end() ? 0 : has->second) - (held == used.end() ? 0 : held->second);
    if (amount > left) return false;
  }
  return true;
}

// Job-per-item: each item's wait from its submission to its first placement. An item placed
// while it fitted somewhere, with what the attempts placed before it and not ended held there,
// waited for no capacity: all of its wait is the residual. One placed when it fitted nowhere (it
// took the room an attempt had just left) may have waited for capacity too: its residual lies
// between the last moment since its submission when it would have fitted (it was not ready yet,
// or it would have been placed then) and its whole wait, an interval. Room: the recorded nodes
// with the items' requests (Recording::node_capacity), else the recording's slots, one an
// attempt. With node pools given the recorded pods cannot be put on their nodes, and the
// residual is left unidentified.
void fit_residuals(const Recording& recording, ClusterFit& fit, Observed& residual) {
  const SimClusterConfig& cluster = recording.capacity.cluster;
  const int slots = cluster.nodes * cluster.slots_per_node;
  const bool on_nodes = !recording.node_capacity.empty();
  if (!on_nodes && (!cluster.pools.pools.empty() || slots <= 0)) return;
  const data::Quantities one_slot{{"slots", 1}};
  const std::map<std::string, data::Quantities> room =
      on_nodes ? recording.node_capacity : std::map<std::string, data::Quantities>{{"", {{"slots", slots}}}};
  std::unordered_map<std::string, const data::Quantities*> requests;
  for (const data::WorkItem& item : recording.items) requests[item.id] = &item.requests;
  const data::Quantities none;
  const auto asks = [&](const std::string& item_id) -> const data::Quantities& {
    if (!on_nodes) return one_slot;
    const auto found = requests.find(item_id);
    return found == requests.end() ? none : *found->second;
  };
  const auto node_of = [&](const data::Attempt& a) { return on_nodes ? a.node : std::string(); };

  const std::vector<RoomChange> changes = room_changes(recording.attempts);
  std::vector<ItemTrace> traces = item_traces(recording);
  std::stable_sort(traces.begin(), traces.end(), [](const ItemTrace& x, const ItemTrace& y) { return x.placed < y.placed; });

  std::map<std::string, data::Quantities> used;
  const auto fits_somewhere = [&](const data::Quantities& asked) {
    return std::any_of(room.begin(), room.end(), [&](const auto& node) { return fits(asked, node.second, used[node.first]); });
  };
  // The last moment each waiting request fitted somewhere: the end of the last stretch between
  // changes in which it did. Only requests of items submitted and not yet placed are looked at
  // (an item placed at or before its submission never waits).
  std::map<data::Quantities, Micros> last_fitted;
  std::map<data::Quantities, int> waiting;
  std::vector<std::size_t> by_submission(traces.size());
  for (std::size_t k = 0; k < traces.size(); ++k) by_submission[k] = k;
  std::stable_sort(by_submission.begin(), by_submission.end(),
                   [&](std::size_t x, std::size_t y) { return traces[x].submitted < traces[y].submitted; });
  std::size_t next_change = 0, next_submitted = 0;
  for (const ItemTrace& t : traces) {
    const data::Quantities& asked = asks(t.item->id);
    // Up to just before t.placed: each stretch closing at a change is checked for the requests
    // waiting in it, then the changes at that moment are made.
    while (true) {
      const Micros change_at = next_change < changes.size() ? changes[next_change].at : t.placed;
      const Micros submit_at = next_submitted < traces.size() ? traces[by_submission[next_submitted]].submitted : t.placed;
      if (std::min(change_at, submit_at) >= t.placed) break;
      if (submit_at <= change_at) {
        const ItemTrace& submitted = traces[by_submission[next_submitted++]];
        if (submitted.submitted < submitted.placed) ++waiting[asks(submitted.item->id)];
        continue;
      }
      for (const auto& [request, count] : waiting) {
        if (count > 0 && fits_somewhere(request)) last_fitted[request] = change_at;
      }
      for (; next_change < changes.size() && changes[next_change].at == change_at; ++next_change) {
        const RoomChange& c = changes[next_change];
        for (const auto& [resource, amount] : asks(c.attempt->item_id)) {
          used[node_of(*c.attempt)][resource] += c.ends ? -amount : amount;
        }
      }
    }
    const Micros wait = std::max<Micros>(0, t.placed - t.submitted);
    if (wait == 0 || fits_somewhere(asked)) {
      residual.add(t.item->type, static_cast<double>(wait));
    } else {
      ++fit.bounded;
      const auto fitted = last_fitted.find(asked);
      const Micros since = fitted == last_fitted.end() ? t.submitted : std::max(t.submitted, fitted->second);
      residual.add(t.item->type, data::CensoredValue{static_cast<double>(std::min(since, t.placed) - t.submitted),
                                                     static_cast<double>(wait)});
    }
    if (t.submitted < t.placed) --waiting[asked];
  }
}

// The per-Job overhead, a residual and then a start-up drawn independently: the quantiles of
// every sum of a residual knot and a start-up knot (no random draws).
data::TypedDelays overhead_of(const data::TypedDelays& residual, const data::TypedDelays& startup,
                              const std::string& why_none) {
  data::TypedDelays overhead;
  if (!residual.identified()) {
    overhead.unidentified = why_none;
    return overhead;
  }
  const auto sum = [](const data::EmpiricalQuantiles& r, const data::EmpiricalQuantiles* s) {
    std::vector<double> sums;
    for (double a : r.knots) {
      if (s == nullptr) {
        sums.push_back(a);
        continue;
      }
      for (double b : s->knots) sums.push_back(a + b);
    }
    data::EmpiricalQuantiles q = data::EmpiricalQuantiles::of(std::move(sums));
    q.observations = r.observations;
    return q;
  };
  const bool with_startup = startup.identified();
  overhead.pooled = sum(residual.pooled, with_startup ? &startup.pooled : nullptr);
  for (const auto& [type, q] : residual.by_type) {
    overhead.by_type[type] = sum(q, with_startup ? &startup.of_type(type) : nullptr);
  }
  return overhead;
}

// Node provisioning, per pool: each node that joined a run arrived (became ready, else was
// created) after it was ordered, which is when the scheduler first told a pod it fits nowhere:
// the earliest such time among the attempts first placed on that node, before it arrived. A node
// no such attempt was placed on shows no order, and is left out.
data::TypedDelays fit_provisioning(const std::vector<Recording>& recordings, const ClusterFitOptions& options,
                                   ClusterFit& fit) {
  Observed provisioning;
  std::size_t with_time = 0, with_pods = 0;
  std::string unrecorded;
  for (const Recording& recording : recordings) {
    if (!recording.node_arrivals_unrecorded.empty()) {
      unrecorded += (unrecorded.empty() ? "" : "; ") + ("run " + recording.name + ": " + recording.node_arrivals_unrecorded);
    }
    std::unordered_map<std::string, const data::NodeArrival*> arrived;
    for (const data::NodeArrival& n : recording.node_arrivals) {
      if (n.present_at_start) continue;  // a spot node watched for its departure, not an arrival
      fit.nodes_arrived += 1;
      if (n.ready || n.created) arrived[n.node] = &n;
    }
    with_time += arrived.size();
    std::unordered_map<std::string, Micros> ordered;  // node -> earliest unschedulable before it arrived
    std::unordered_set<std::string> placed_on;
    std::unordered_map<std::string, int> first_placed;  // item -> its first placed attempt's number
    for (const data::Attempt& a : recording.attempts) {
      if (!a.placed || a.node.empty()) continue;
      auto [at, added] = first_placed.try_emplace(a.item_id, a.number);
      if (!added && a.number < at->second) at->second = a.number;
    }
    for (const data::Attempt& a : recording.attempts) {
      const auto node = arrived.find(a.node);
      if (node == arrived.end() || !a.placed || first_placed.at(a.item_id) != a.number) continue;
      placed_on.insert(a.node);
      const Micros arrival = node->second->ready.value_or(node->second->created.value_or(0));
      if (!a.unschedulable || *a.unschedulable > arrival) continue;
      auto [at, added] = ordered.try_emplace(a.node, *a.unschedulable);
      if (!added) at->second = std::min(at->second, *a.unschedulable);
    }
    with_pods += placed_on.size();
    for (const auto& [name, order] : ordered) {
      const data::NodeArrival& n = *arrived.at(name);
      const auto delay = static_cast<double>(n.ready.value_or(n.created.value_or(0)) - order);
      if (n.pool.empty()) {
        provisioning.all.add({delay, delay});
      } else {
        provisioning.add(n.pool, delay);
      }
      ++fit.nodes_ordered;
    }
  }
  const std::string arrivals = std::to_string(fit.nodes_arrived) + " nodes arrived but ";
  const std::string why =
      fit.nodes_arrived == 0 ? "no node arrivals recorded" + (unrecorded.empty() ? std::string(" (no run recorded when an autoscaled node joined)")
                                                                                  : " (" + unrecorded + ")")
      : with_time == 0 ? arrivals + "none with its creation or ready time recorded"
      : with_pods == 0 ? arrivals + "no pod was recorded placed on any of them (the attempts' node phase)"
                       : arrivals + "no pod placed on them was recorded as unschedulable before they arrived (the "
                                    "attempts' unschedulable phase): when each was ordered is unknown";
  return delays_of(provisioning, options, why);
}

}  // namespace

ClusterFit fit_cluster(const std::vector<Recording>& recordings, const ClusterFitOptions& options) {
  ClusterFit fit;
  Observed placement, startup, gap;
  struct Counts {
    std::size_t attempts = 0;
    std::map<std::string, std::vector<const data::Attempt*>> failed;  // by reason
  };
  Counts pooled_counts;
  std::map<std::string, Counts> by_type_counts;
  std::map<std::string, std::map<std::string, Micros>> succeeded_duration;  // recording -> item -> duration
  std::vector<std::string> sources, capacities;
  bool any_jobs = false, any_pool = false;
  for (const Recording& recording : recordings) {
    if (recording.attempts.empty()) throw data::Error("run " + recording.name, "has no attempts to fit a cluster from");
    sources.push_back(recording.name);
    capacities.push_back(recording.name + ": " + recording.capacity_text);
    std::unordered_map<std::string, const data::WorkItem*> item_of;
    for (const data::WorkItem& item : recording.items) item_of[item.id] = &item;
    const auto type_of = [&](const data::Attempt& a) {
      auto found = item_of.find(a.item_id);
      return found == item_of.end() ? std::string("range") : found->second->type;
    };
    std::map<std::string, Micros>& durations = succeeded_duration[recording.name];
    for (const data::Attempt& a : recording.attempts) {
      ++fit.attempts;
      fit.with_submitted += a.submitted.has_value();
      fit.with_placed += a.placed.has_value();
      if (a.placed && a.start >= *a.placed) {
        startup.add(type_of(a), static_cast<double>(a.start - *a.placed));
      }
      const std::string type = type_of(a);
      ++pooled_counts.attempts;
      ++by_type_counts[type].attempts;
      if (a.outcome == data::Outcome::kFailed) {
        const std::string reason = a.failure_reason.empty() ? "exit" : a.failure_reason;
        pooled_counts.failed[reason].push_back(&a);
        by_type_counts[type].failed[reason].push_back(&a);
      } else if (a.outcome == data::Outcome::kSucceeded) {
        durations[a.item_id] = a.duration();
      }
    }
    if (recording.pool_workers()) {
      any_pool = true;
      // Per worker, in start order: the first item waits for the worker's pod; each later one
      // shows the gap since the previous item's end.
      std::map<std::string, std::vector<const data::Attempt*>> by_worker;
      for (const data::Attempt& a : recording.attempts) by_worker[a.worker].push_back(&a);
      const std::map<std::string, Micros> submitted = submitted_at(recording.items, recording.attempts);
      for (auto& [worker, attempts] : by_worker) {
        std::sort(attempts.begin(), attempts.end(),
                  [](const data::Attempt* x, const data::Attempt* y) { return x->start < y->start; });
        const data::Attempt& first = *attempts.front();
        if (first.placed && first.submitted) {
          placement.add(type_of(first), static_cast<double>(std::max<Micros>(0, *first.placed - *first.submitted)));
        }
        for (std::size_t k = 1; k < attempts.size(); ++k) {
          gap.add(type_of(*attempts[k]), static_cast<double>(std::max<Micros>(0, attempts[k]->start - attempts[k - 1]->end)));
        }
      }
    } else {
      any_jobs = true;
      // A first attempt without its submission recorded counts as submitted at its item's
      // submit time (ItemTrace), so items with submit times give waits too.
      bool submissions = false, placements = false;
      for (const data::Attempt& a : recording.attempts) {
        submissions = submissions || a.submitted.has_value();
        placements = placements || a.placed.has_value();
      }
      for (const data::WorkItem& item : recording.items) submissions = submissions || item.submit_at != 0;
      if (submissions) {
        fit_residuals(recording, fit, placement);
        fit.residual_includes_startup = fit.residual_includes_startup || !placements;
      }
    }
  }
  fit.model.source = "runs " + [&] {
    std::string joined;
    for (const std::string& s : sources) joined += (joined.empty() ? "" : ",") + s;
    return joined;
  }();
  for (const std::string& c : capacities) fit.model.capacity += (fit.model.capacity.empty() ? "" : "; ") + c;

  const std::string no_submissions =
      "no submission times recorded (the attempts' submitted_s, or the items' submit_s): the wait before placement "
      "cannot be told apart";
  fit.model.placement = delays_of(placement, options, no_submissions);
  if (fit.model.placement.identified() && fit.model.placement.pooled.quantile(1) == 0) {
    fit.model.placement = {};
    fit.model.placement.unidentified =
        "every recorded wait before placement is 0: nothing to learn (a trace that records no waits, e.g. SWF "
        "wait time -1, reads so)";
  }
  fit.model.startup =
      delays_of(startup, options, "no placement times recorded: start-up (placed -> working) cannot be measured");
  fit.model.worker_gap = delays_of(gap, options,
                                   any_pool ? "no worker ran two items" : "no pool workers in these runs (one Job per item)");
  if (any_jobs) {
    // Not identified: for the placement residual's reason.
    fit.model.job_overhead = overhead_of(fit.model.placement, fit.model.startup, fit.model.placement.unidentified);
  } else {
    fit.model.job_overhead.unidentified = "no run of one Job per item among these runs";
  }
  fit.model.provisioning = fit_provisioning(recordings, options, fit);
  fit.model.interruptions = fit_interruptions(recordings);

  // Failures: per attempt, by reason; when in the attempt: its duration over the item's
  // succeeded one (uniform when the item never succeeded).
  std::size_t failures = 0;
  for (const auto& [reason, list] : pooled_counts.failed) failures += list.size();
  const auto type_failures = [&](const Counts& counts) {
    data::TypeFailures out;
    out.attempts = counts.attempts;
    for (const auto& [reason, list] : counts.failed) {
      data::FailureMode mode;
      mode.reason = reason;
      mode.failures = list.size();
      mode.probability = static_cast<double>(list.size()) / static_cast<double>(counts.attempts);
      std::map<int, int> codes;
      std::vector<double> fractions;
      for (const data::Attempt* a : list) {
        ++codes[a->exit_code];
        for (const auto& [name, durations] : succeeded_duration) {
          auto d = durations.find(a->item_id);
          if (d != durations.end() && d->second > 0) {
            fractions.push_back(std::clamp(static_cast<double>(a->duration()) / static_cast<double>(d->second), 0.0, 1.0));
            break;
          }
        }
      }
      mode.exit_code = std::max_element(codes.begin(), codes.end(), [](auto& x, auto& y) { return x.second < y.second; })->first;
      mode.timing = data::EmpiricalQuantiles::of(fractions);
      out.modes.push_back(std::move(mode));
    }
    return out;
  };
  if (failures < options.min_failures) {
    fit.model.failures.unidentified = std::to_string(failures) + " failed attempts of " +
                                      std::to_string(pooled_counts.attempts) + ": too few (at least " +
                                      std::to_string(options.min_failures) + ") to estimate a failure probability";
  } else {
    fit.model.failures.pooled = type_failures(pooled_counts);
    if (by_type_counts.size() > 1) {
      for (const auto& [type, counts] : by_type_counts) {
        if (counts.attempts >= options.min_per_type) fit.model.failures.by_type[type] = type_failures(counts);
      }
    }
  }
  return fit;
}

namespace {

// Fewer observations than this give quantiles that are the values seen rather than an estimate.
constexpr std::size_t kFewObservations = 5;

void print_delays(std::ostream& out, const char* name, const data::TypedDelays& d) {
  char line[64];
  std::snprintf(line, sizeof line, "  %-20s", name);
  out << line;
  if (!d.identified()) {
    out << "not identified: " << d.unidentified << "\n";
    return;
  }
  const auto quantiles = [&](const data::EmpiricalQuantiles& q) {
    std::ostringstream text;
    text << q.observations << " observations, p50 " << data::readable_duration(std::llround(q.quantile(0.5)))
         << ", p90 " << data::readable_duration(std::llround(q.quantile(0.9))) << ", p99 "
         << data::readable_duration(std::llround(q.quantile(0.99))) << ", max "
         << data::readable_duration(std::llround(q.quantile(1)));
    return text.str();
  };
  out << quantiles(d.pooled) << "\n";
  if (d.pooled.observations < kFewObservations) {
    out << "    from " << d.pooled.observations << (d.pooled.observations == 1 ? " observation" : " observations")
        << " only: its percentiles are the values seen, not an estimate of the spread\n";
  }
  for (const auto& [type, q] : d.by_type) out << "    type " << type << ": " << quantiles(q) << "\n";
}

}  // namespace

std::string format_cluster_fit(const ClusterFit& fit) {
  std::ostringstream out;
  const data::ClusterModel& m = fit.model;
  out << "cluster fit from " << m.source << " (" << fit.attempts << " attempts, " << fit.with_submitted
      << " with their submission recorded, " << fit.with_placed << " with their placement)\n";
  out << "  capacity replayed: " << m.capacity << "\n";
  if (fit.bounded > 0) {
    out << "  placements while every slot was held (or no recorded node had room for the pod): " << fit.bounded
        << " (their residual lies between the last moment they would have fitted and their whole wait; estimated with the others by Turnbull's interval-censored maximum likelihood)\n";
  }
  print_delays(out, "placement residual", m.placement);
  if (m.placement.identified() && fit.with_submitted == 0) {
    out << "    submission times: the items' submit_s (no attempt recorded submitted_s; a first attempt counts as "
           "submitted at its item's submit time)\n";
  }
  if (m.placement.identified() && fit.residual_includes_startup) {
    out << "    no placement times recorded (scheduled_s): this is the whole wait from submission to start that "
           "capacity does not explain, placement and start-up together, and is drawn as such\n";
  }
  print_delays(out, "start-up", m.startup);
  print_delays(out, "per-Job overhead", m.job_overhead);
  print_delays(out, "worker gap", m.worker_gap);
  print_delays(out, "node provisioning", m.provisioning);
  if (m.provisioning.identified() && fit.nodes_ordered < fit.nodes_arrived) {
    out << "    " << fit.nodes_arrived - fit.nodes_ordered << " of " << fit.nodes_arrived
        << " node arrivals left out: no pod first placed on them was recorded as unschedulable before they arrived\n";
  }
  out << "  spot interruptions  " << interruptions_text(m.interruptions) << "\n";
  out << "  failures            ";
  if (!m.failures.identified()) {
    out << "not identified: " << m.failures.unidentified << "\n";
  } else {
    out << m.failures.pooled.attempts << " attempts:";
    for (const data::FailureMode& mode : m.failures.pooled.modes) {
      char share[32];
      std::snprintf(share, sizeof share, "%.2f%%", 100 * mode.probability);
      out << " " << mode.reason << " " << share << " (" << mode.failures << ", exit " << mode.exit_code << ", ";
      if (mode.timing.empty()) {
        out << "when unknown: no item of theirs succeeded to measure it against, drawn anywhere in the work)";
      } else {
        std::snprintf(share, sizeof share, "%.0f%%", 100 * mode.timing.quantile(0.5));
        out << "at p50 " << share << " of the work)";
      }
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace millrace::sim
