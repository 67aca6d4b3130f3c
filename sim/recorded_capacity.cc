#include "sim/recorded_capacity.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/quantity.h"
#include "data/readable_duration.h"
#include "data/run_summary.h"
#include "scheduler/concurrency_policy.h"

namespace millrace::sim {

namespace {

bool known_policy(const std::string& name) {
  const std::vector<std::string> names = scheduler::policy_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The run's "workers" parameter (real runs keep it), 0 when it has none.
int recorded_workers(const data::Run& run) {
  const nlohmann::json parameters = nlohmann::json::parse(run.parameters, nullptr, false);
  if (!parameters.is_object() || !parameters.contains("workers") || !parameters["workers"].is_number_integer()) return 0;
  return std::max(0, parameters["workers"].get<int>());
}

// The most attempts running at once, each from its placement (when recorded) to its end.
int peak_concurrency(const std::vector<data::Attempt>& attempts) {
  std::vector<data::Micros> starts, ends;
  for (const data::Attempt& a : attempts) {
    starts.push_back(a.placed.value_or(a.start));
    ends.push_back(std::max(a.end, starts.back()));
  }
  return starts.empty() ? 1 : std::max(1, data::BusySweep::of(std::move(starts), std::move(ends)).peak());
}

// Each recorded node as large as the most its attempts held at once, resource by resource (an
// attempt holds its item's requests from its placement to its end; one ending as another is
// placed hands its room over). When no attempt names a node (an SWF log: one machine), the
// machine is one node named "". Empty unless some item asks for something and every attempt
// names its node or none does.
std::map<std::string, data::Quantities> recorded_node_capacity(const RecordedRun& recorded) {
  std::unordered_map<std::string, const data::Quantities*> asks;
  bool any_request = false;
  for (const data::WorkItem& item : recorded.items) {
    asks[item.id] = &item.requests;
    any_request = any_request || !item.requests.empty();
  }
  if (!any_request || recorded.attempts.empty()) return {};
  const bool one_machine =
      std::none_of(recorded.attempts.begin(), recorded.attempts.end(), [](const data::Attempt& a) { return !a.node.empty(); });
  for (const data::Attempt& a : recorded.attempts) {
    if ((a.node.empty() && !one_machine) || asks.count(a.item_id) == 0) return {};
  }
  std::map<std::string, data::Quantities> used, capacity;
  for (const RoomChange& c : room_changes(recorded.attempts)) {
    for (const auto& [resource, amount] : *asks.at(c.attempt->item_id)) {
      std::int64_t& held = used[c.attempt->node][resource];
      held += c.ends ? -amount : amount;
      std::int64_t& peak = capacity[c.attempt->node][resource];
      peak = std::max(peak, held);
    }
  }
  return capacity;
}

// Nodes of equal capacity as one pool each, of fixed size, in the order their first node is named.
NodePoolsConfig pools_of(const std::map<std::string, data::Quantities>& node_capacity) {
  NodePoolsConfig config;
  for (const auto& [node, capacity] : node_capacity) {
    const data::Quantities& room = capacity;  // a structured binding is not captured by clang 14
    auto pool = std::find_if(config.pools.begin(), config.pools.end(), [&](const NodePool& p) { return p.capacity == room; });
    if (pool == config.pools.end()) {
      config.pools.push_back({"recorded-" + std::to_string(config.pools.size() + 1), 0, 0, 0, 0, capacity});
      pool = config.pools.end() - 1;
    }
    ++pool->count;
    pool->min = pool->max = pool->count;
  }
  return config;
}

}  // namespace

std::vector<RoomChange> room_changes(const std::vector<data::Attempt>& attempts) {
  std::vector<RoomChange> changes;
  changes.reserve(2 * attempts.size());
  for (const data::Attempt& a : attempts) {
    const data::Micros placed = a.placed.value_or(a.start);
    changes.push_back({placed, false, &a});
    changes.push_back({std::max(a.end, placed), true, &a});
  }
  std::stable_sort(changes.begin(), changes.end(), [](const RoomChange& x, const RoomChange& y) {
    return x.at != y.at ? x.at < y.at : x.ends > y.ends;
  });
  return changes;
}

std::map<std::string, data::Micros> submitted_at(const std::vector<data::WorkItem>& items,
                                                 const std::vector<data::Attempt>& attempts) {
  std::map<std::string, data::Micros> at;
  std::map<std::string, int> first_number;
  for (const data::WorkItem& item : items) at[item.id] = item.submit_at;
  for (const data::Attempt& a : attempts) {
    auto [number, added] = first_number.try_emplace(a.item_id, a.number);
    if (!added && a.number >= number->second) continue;
    number->second = a.number;
    auto found = at.find(a.item_id);
    if (found != at.end() && a.submitted) found->second = *a.submitted;
  }
  return at;
}

Recording on_recorded_capacity(RecordedRun recorded, const CapacityGiven& given) {
  Recording r;
  r.name = recorded.run.name;
  const std::string policy = !given.policy.empty() ? given.policy
                             : known_policy(recorded.run.policy) ? recorded.run.policy
                                                                 : "job-per-item";
  if (!known_policy(policy)) {
    throw data::Error("run " + r.name, "policy '" + policy + "' is none of " + scheduler::policy_list());
  }
  std::string text = policy;
  text += given.policy.empty() ? (known_policy(recorded.run.policy) ? " (recorded)" : " (a trace of payload items)") : "";
  std::set<std::string> named;
  for (const data::Attempt& a : recorded.attempts) {
    if (!a.worker.empty()) named.insert(a.worker);
  }
  int workers = given.workers;
  std::string workers_source = "given";
  if (workers == 0 && (workers = recorded_workers(recorded.run)) > 0) workers_source = "recorded";
  if (workers == 0) {
    const bool jobs = policy == "job-per-item";
    workers = jobs ? std::max<int>(1, static_cast<int>(recorded.items.size())) : std::max<int>(1, static_cast<int>(named.size()));
    workers_source = jobs ? "one per item" : "named workers recorded";
  }
  SimulationConfig& config = r.capacity;
  config.scheduler.plan_name = "run " + r.name;
  config.scheduler.policy = policy;
  config.scheduler.params = scheduler::policy_params(workers, scheduler::AutoscaleSettings{});
  config.scheduler.params.type_limits = given.type_limits;
  config.scheduler.on_exhausted = scheduler::OnExhausted::kReport;
  text += (policy == "job-per-item" ? ", up to " : ", ") + std::to_string(workers) +
          (policy == "job-per-item" ? " at once (" : " workers (") + workers_source + ")";
  if (!given.pools.pools.empty()) {
    config.cluster.pools = given.pools;
    text += ", on the node pools given";
  } else if (given.nodes > 0) {
    config.cluster.nodes = given.nodes;
    config.cluster.slots_per_node = given.slots_per_node;
    text += ", on " + std::to_string(given.nodes) + " x " + std::to_string(given.slots_per_node) + " slots (given)";
  } else if (policy == "job-per-item" && !(r.node_capacity = recorded_node_capacity(recorded)).empty()) {
    config.cluster.pools = pools_of(r.node_capacity);
    text += r.node_capacity.count("") > 0 ? ", on one machine (no nodes recorded) as large as the most its jobs held at once ("
                                          : ", on the " + std::to_string(r.node_capacity.size()) +
                                                " nodes recorded, each as large as the most its pods held at once (";
    const char* separator = "";
    for (const NodePool& pool : config.cluster.pools.pools) {
      text += separator + std::to_string(pool.count) + " x " + data::readable_quantities(pool.capacity);
      separator = "; ";
    }
    text += ")";
  } else {
    const bool pool = policy != "job-per-item";
    config.cluster.nodes = pool ? workers : peak_concurrency(recorded.attempts);
    text += ", on " + std::to_string(config.cluster.nodes) +
            (pool ? " slots (one per worker)" : " slots (the most attempts the recording ran at once)");
  }
  r.capacity_text = std::move(text);
  r.items = std::move(recorded.items);
  r.attempts = std::move(recorded.attempts);
  r.node_arrivals = std::move(recorded.node_arrivals);
  r.node_arrivals_unrecorded = std::move(recorded.node_arrivals_unrecorded);
  return r;
}

std::vector<ItemTrace> item_traces(const Recording& recording) {
  // The deciding attempt: the last succeeded one, else the last one.
  const auto rank = [](const data::Attempt& a) { return std::pair{a.outcome == data::Outcome::kSucceeded, a.number}; };
  std::unordered_map<std::string, const data::Attempt*> first, deciding;
  for (const data::Attempt& a : recording.attempts) {
    auto [f, added] = first.try_emplace(a.item_id, &a);
    if (!added && a.number < f->second->number) f->second = &a;
    auto [d, fresh] = deciding.try_emplace(a.item_id, &a);
    if (!fresh && rank(a) > rank(*d->second)) d->second = &a;
  }
  const std::map<std::string, data::Micros> submitted = submitted_at(recording.items, recording.attempts);
  std::vector<ItemTrace> traces;
  for (const data::WorkItem& item : recording.items) {
    auto f = first.find(item.id);
    if (f == first.end()) continue;  // never attempted: nothing to learn from it
    const data::Attempt& a = *f->second;
    const data::Attempt& d = *deciding.at(item.id);
    ItemTrace t;
    t.item = &item;
    t.submitted = submitted.at(item.id);
    t.placed = a.placed.value_or(a.start);
    t.placement_recorded = a.placed.has_value();
    t.started = a.start;
    t.hold = std::max<data::Micros>(0, d.end - d.placed.value_or(d.start));
    t.work = std::max<data::Micros>(0, d.end - d.start);
    t.ended = d.end;
    traces.push_back(t);
  }
  return traces;
}

Recording earliest(const Recording& recording, double share) {
  const std::map<std::string, data::Micros> at = submitted_at(recording.items, recording.attempts);
  std::vector<std::size_t> order(recording.items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return at.at(recording.items[a].id) < at.at(recording.items[b].id);
  });
  std::vector<bool> kept(recording.items.size(), false);
  const auto cut = static_cast<std::size_t>(share * static_cast<double>(order.size()));
  for (std::size_t k = 0; k < cut; ++k) kept[order[k]] = true;
  Recording part{recording.name,          {},
                 {},                      recording.capacity,
                 recording.capacity_text, recording.node_capacity,
                 recording.node_arrivals, recording.node_arrivals_unrecorded};
  std::unordered_set<std::string> ids;
  for (std::size_t i = 0; i < recording.items.size(); ++i) {
    if (!kept[i]) continue;
    part.items.push_back(recording.items[i]);
    ids.insert(recording.items[i].id);
  }
  for (data::WorkItem& item : part.items) {
    std::erase_if(item.depends_on, [&](const std::string& id) { return ids.count(id) == 0; });
  }
  for (const data::Attempt& a : recording.attempts) {
    if (ids.count(a.item_id) > 0) part.attempts.push_back(a);
  }
  return part;
}

}  // namespace millrace::sim
