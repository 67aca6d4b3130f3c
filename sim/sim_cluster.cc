#include "sim/sim_cluster.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "data/error.h"
#include "data/quantity.h"
#include "data/readable_duration.h"

namespace millrace::sim {

namespace {

constexpr const char* kTimelineNames[] = {"submitted", "placed", "started", "succeeded", "failed", "slot-freed",
                                          "node-lost"};

// A uniform draw in [0, 1) from the top 53 bits: the same on every standard library.
double unit_draw(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::string padded(int n, int width) {
  std::string digits = std::to_string(n);
  std::string text(width - std::min<int>(width, digits.size()), '0');
  text += digits;
  return text;
}

}  // namespace

const char* to_string(TimelineEntry::Kind kind) { return kTimelineNames[static_cast<int>(kind)]; }

SimCluster::SimCluster(SimEngine& engine, SimClusterConfig config, const std::vector<data::Micros>& durations,
                       std::mt19937_64& rng, std::mt19937_64& interruption_rng, bool record_timeline)
    : engine_(engine), config_(std::move(config)), durations_(durations), rng_(rng),
      interruption_rng_(interruption_rng), record_timeline_(record_timeline) {
  const std::string where = "simulated cluster";
  if (config_.nodes < 1 || config_.slots_per_node < 1) {
    throw data::Error(where, "needs at least one node with at least one slot (has " + std::to_string(config_.nodes) +
                                 " nodes of " + std::to_string(config_.slots_per_node) + " slots each)");
  }
  if (!(config_.fail_prob >= 0 && config_.fail_prob <= 1)) {
    char text[64];
    std::snprintf(text, sizeof text, "failure probability %g is outside [0, 1]", config_.fail_prob);
    throw data::Error(where, text);
  }
  auto not_negative = [&](data::Micros value, const char* setting) {
    if (value < 0) throw data::Error(where, std::string(setting) + " " + std::to_string(value) + " us must be >= 0");
  };
  not_negative(config_.startup.constant, "start-up latency");
  not_negative(config_.create_overhead, "create overhead");
  not_negative(config_.delete_overhead, "delete overhead");
  for (data::Micros sample : config_.startup.samples) not_negative(sample, "start-up latency sample");
  for (const Window& w : config_.api_down) {
    if (w.to < w.from) {
      throw data::Error(where, "API unavailability window " + std::to_string(w.from) + "-" + std::to_string(w.to) +
                                   " us ends before it starts");
    }
  }
  if (config_.fitted && config_.fitted->failures.identified()) {
    if (config_.fail_prob > 0) throw data::Error(where, "a failure probability and fitted failures at once");
    auto number = [this](const data::TypeFailures& failures) {
      first_mode_[&failures] = static_cast<std::uint32_t>(fitted_modes_.size());
      for (const data::FailureMode& mode : failures.modes) fitted_modes_.push_back(&mode);
    };
    number(config_.fitted->failures.pooled);
    for (const auto& [type, failures] : config_.fitted->failures.by_type) number(failures);
  }
  std::sort(config_.api_down.begin(), config_.api_down.end(),
            [](const Window& a, const Window& b) { return a.from < b.from; });
  if (!config_.pools.pools.empty()) {
    check_node_pools(config_.pools.pools, "--node-pools");
    if (!config_.node_losses.empty()) throw data::Error(where, "node losses name slot nodes, not pool nodes");
    std::vector<std::string> resources;
    for (const NodePool& pool : config_.pools.pools) {
      for (const auto& [name, milli] : pool.capacity) {
        if (resource_index_.emplace(name, 0).second) resources.push_back(name);
      }
    }
    std::sort(resources.begin(), resources.end());
    for (std::size_t r = 0; r < resources.size(); ++r) resource_index_[resources[r]] = r;
    pool_nodes_ = std::make_unique<PoolNodes>(config_.pools.pools, config_.pools.placement, std::move(resources));
    interruption_rates_ = sim::interruption_rates(config_.pools.pools, config_.fitted.get());
    nodes_interrupted_.assign(config_.pools.pools.size(), 0);
    // A spot pool's nodes up at the start each have their own life (and scale-down check:
    // watch_start_nodes()).
    for (std::size_t pool = 0; pool < pool_nodes_->pool_count(); ++pool) {
      alive_slots_ += pool_nodes_->up_nodes(pool);
      if (pool_nodes_->up_nodes(pool) == 0 || !(interruption_rates_[pool].per_node_hour > 0)) continue;
      for (int node : pool_nodes_->materialise_start_nodes(pool)) {
        spot_start_nodes_.push_back(node);
        arm_interruption(node);
      }
    }
    return;
  }
  int width = static_cast<int>(std::to_string(config_.nodes - 1).size());
  width = std::max(width, 3);
  for (int n = 0; n < config_.nodes; ++n) {
    for (int s = 0; s < config_.slots_per_node; ++s) {
      int id = static_cast<int>(slots_.size());
      slots_.push_back(Slot{n, true, false, 0, 0, {}});
      std::string name = "node-";
      name += padded(n, width);
      if (config_.slots_per_node > 1) {
        name += '/';
        name += std::to_string(s);
      }
      slot_names_.push_back(std::move(name));
      free_slots_.push(id);
    }
  }
  alive_slots_ = static_cast<int>(slots_.size());
  for (const NodeLoss& loss : config_.node_losses) {
    if (loss.node < 0 || loss.node >= config_.nodes) {
      throw data::Error("simulated cluster", "node loss names node " + std::to_string(loss.node) + " of " +
                                                 std::to_string(config_.nodes));
    }
    engine_.at(loss.at, SimEvent{SimEvent::Kind::kNodeLoss, static_cast<std::uint32_t>(loss.node), 0});
  }
}

void SimCluster::submit(const scheduler::Submission& submission) {
  scheduler::AttemptHandle handle = submission.handle;
  plan_ = submission.plan;
  scheduler::Flight& flight =
      flights_ == &own_flights_ ? own_flights_.add(handle) : *submission.flight;
  Attempt& attempt = flight.cluster.emplace<Attempt>(Attempt{.item = submission.index, .number = submission.attempt});
  note(TimelineEntry::Kind::kSubmitted, handle, -1);
  if (!submission.worker.empty() && pool_nodes_) {
    throw data::Error("simulated cluster", "node pools run one Job per item (policy job-per-item), not long-lived "
                                           "worker '" + std::string(submission.worker) + "'");
  }
  if (!submission.worker.empty()) {
    attempt.pod = pod_of(submission);
    Pod& pod = pods_[attempt.pod];
    bool created = !pod.exists;
    if (created) pod = Pod{true};
    pod.current = handle;
    if (pod.up) {
      start_after(worker_gap(attempt), handle, attempt);
      return;
    }
    if (!created) return;  // its pod is being created: it starts this attempt once up
  }
  attempt.next = engine_.at(api_ready(engine_.now()) + config_.create_overhead + placement_delay(attempt),
                            SimEvent{SimEvent::Kind::kPlace, 0, handle});
}

void SimCluster::cancel(scheduler::AttemptHandle handle) {
  Attempt* attempt = attempt_of(handle);
  if (attempt == nullptr) return;
  engine_.cancel(attempt->next);
  if (attempt->pod >= 0 && attempt->phase != Phase::kRunning) {
    // A worker pod not up yet is given up with its attempt; a running one stays for the next.
    remove_pod(attempt->pod);
  }
  attempt->next = engine_.at(engine_.now(), SimEvent{SimEvent::Kind::kFinish, kCancelled, handle});
}

int SimCluster::name_pod(const scheduler::Submission& submission) {
  auto lane = static_cast<std::size_t>(submission.lane);
  auto [it, named] = pod_index_.try_emplace(std::string(submission.worker), static_cast<int>(pods_.size()));
  if (named) pods_.emplace_back();
  if (submission.lane >= 0) {
    if (lane >= lane_pods_.size()) lane_pods_.resize(lane + 1, -1);
    lane_pods_[lane] = it->second;
  }
  return it->second;
}

void SimCluster::retire_worker(const std::string& worker) {
  auto found = pod_index_.find(worker);
  if (found != pod_index_.end()) remove_pod(found->second);
}

void SimCluster::remove_pod(int pod) {
  if (!pods_[pod].exists) return;
  int slot = pods_[pod].slot;
  pods_[pod] = Pod{};
  if (slot >= 0) free_slot_later(slot);
}

void SimCluster::handle(const SimEvent& event) {
  switch (event.kind) {
    case SimEvent::Kind::kPlace: place(event.value); break;
    case SimEvent::Kind::kStart: start(event.value); break;
    case SimEvent::Kind::kFinish: end(event.value, event.index); break;
    case SimEvent::Kind::kFreeSlot: free_slot(static_cast<int>(event.index)); break;
    case SimEvent::Kind::kNodeLoss: lose_node(static_cast<int>(event.index)); break;
    case SimEvent::Kind::kFreeNode: free_node(static_cast<int>(event.index), event.value); break;
    case SimEvent::Kind::kNodeUp: node_up(static_cast<int>(event.index)); break;
    case SimEvent::Kind::kNodeIdle: node_idle(static_cast<int>(event.index), event.value); break;
    case SimEvent::Kind::kPoolIdle: pool_idle(event.index); break;
    case SimEvent::Kind::kNodeInterrupted: interrupt(static_cast<int>(event.index), event.value); break;
    case SimEvent::Kind::kTimer: break;
  }
}

data::Micros SimCluster::slot_time() const {
  data::Micros total = released_slot_time_;
  for (const Slot& s : slots_) {
    if (s.held) total += engine_.now() - s.held_since;
  }
  return total;
}

data::Micros SimCluster::api_ready(data::Micros at) const {
  for (const Window& w : config_.api_down) {
    if (w.from <= at && at < w.to) at = w.to;
  }
  return at;
}

data::Micros SimCluster::draw_startup(const Attempt& attempt) {
  if (config_.fitted && config_.fitted->startup.identified()) {
    return config_.fitted->startup.draw(plan_->type(attempt.item), unit_draw(rng_));
  }
  const auto& samples = config_.startup.samples;
  if (samples.empty()) return config_.startup.constant;
  return samples[rng_() % samples.size()];
}

data::Micros SimCluster::placement_delay(const Attempt& attempt) {
  if (!config_.fitted || !config_.fitted->placement.identified()) return 0;
  return config_.fitted->placement.draw(plan_->type(attempt.item), unit_draw(rng_));
}

data::Micros SimCluster::provision_delay(std::size_t p) {
  const NodePool& pool = pool_nodes_->pool(p);
  if (pool.provision_delay_given || !config_.fitted || !config_.fitted->provisioning.identified()) {
    return pool.provision_delay;
  }
  return config_.fitted->provisioning.draw(pool.name, unit_draw(rng_));
}

data::Micros SimCluster::worker_gap(const Attempt& attempt) {
  if (!config_.fitted || !config_.fitted->worker_gap.identified()) return 0;
  return config_.fitted->worker_gap.draw(plan_->type(attempt.item), unit_draw(rng_));
}

std::uint32_t SimCluster::draw_fitted_failure(const Attempt& attempt, data::Micros& duration) {
  const data::TypeFailures& failures = config_.fitted->failures.of_type(plan_->type(attempt.item));
  double u = unit_draw(rng_);
  for (std::size_t m = 0; m < failures.modes.size(); ++m) {
    const data::FailureMode& mode = failures.modes[m];
    if (u < mode.probability) {
      const double fraction = mode.timing.empty() ? unit_draw(rng_) : std::clamp(mode.timing.draw(unit_draw(rng_)), 0.0, 1.0);
      duration = static_cast<data::Micros>(fraction * static_cast<double>(duration));
      return kFitted + first_mode_.at(&failures) + static_cast<std::uint32_t>(m);
    }
    u -= mode.probability;
  }
  return kOk;
}

void SimCluster::place(scheduler::AttemptHandle handle) {
  Attempt* attempt = attempt_of(handle);
  if (attempt == nullptr) return;
  if (pool_nodes_) {
    place_on_pool(handle, *attempt);
    return;
  }
  int slot = take_free_slot();
  if (slot < 0) {
    attempt->phase = Phase::kPending;
    waiting_.push_back(handle);
    return;
  }
  occupy(slot, handle, *attempt);
}

int SimCluster::take_free_slot() {
  while (!free_slots_.empty()) {
    int slot = free_slots_.top();
    free_slots_.pop();
    if (slots_[slot].alive && !slots_[slot].held) return slot;
  }
  return -1;
}

void SimCluster::occupy(int slot, scheduler::AttemptHandle handle, Attempt& attempt) {
  Slot& s = slots_[slot];
  s.held = true;
  s.held_since = engine_.now();
  if (attempt.pod >= 0) {
    s.job = 0;
    s.pod = attempt.pod;
    pods_[attempt.pod].slot = slot;
  } else {
    s.job = handle;
    attempt.slot = slot;
  }
  note(TimelineEntry::Kind::kPlaced, handle, slot);
  start_after(draw_startup(attempt), handle, attempt);
}

// A start due now when nothing else is due now would be the next event handled (after the one
// being handled, and after the starts already due the same way): with defer_due_starts() it
// waits in a list the owner runs right after the event, in order, instead of in the queue.
void SimCluster::start_after(data::Micros delay, scheduler::AttemptHandle handle, Attempt& attempt) {
  attempt.phase = Phase::kStarting;
  if (defer_due_starts_ && delay <= 0 && !engine_.due_now()) {
    attempt.next = kDueStart;
    due_starts_.push_back(handle);
    return;
  }
  attempt.next = engine_.after(delay, SimEvent{SimEvent::Kind::kStart, 0, handle});
}

void SimCluster::run_starts(std::vector<scheduler::AttemptHandle>& starts) {
  for (scheduler::AttemptHandle handle : starts) {  // a start adds no start
    Attempt* attempt = attempt_of(handle);
    if (attempt == nullptr || attempt->next != kDueStart) continue;  // cancelled or lost meanwhile
    ++starts_without_event_;
    start(handle, *attempt);
  }
  starts.clear();
}

void SimCluster::start(scheduler::AttemptHandle handle) {
  if (Attempt* attempt = attempt_of(handle)) start(handle, *attempt);
}

void SimCluster::start(scheduler::AttemptHandle handle, Attempt& attempt) {
  int slot = attempt.slot;
  if (attempt.pod >= 0) {
    Pod& pod = pods_[attempt.pod];
    pod.up = true;
    slot = pod.slot;
  }
  attempt.phase = Phase::kRunning;
  data::Micros duration = std::max<data::Micros>(0, durations_[attempt.item]);
  std::uint32_t ending = kOk;
  const RecordedEnd* recorded = config_.recorded_ends.empty() ? nullptr : recorded_end(attempt);
  if (recorded != nullptr) {
    duration = recorded->duration;
    ending = recorded->reason.empty() ? kOk : kRecorded;
  } else if (config_.fail_prob > 0 && unit_draw(rng_) < config_.fail_prob) {
    ending = kExit;
    duration = static_cast<data::Micros>(unit_draw(rng_) * static_cast<double>(duration));
  } else if (!fitted_modes_.empty()) {
    ending = draw_fitted_failure(attempt, duration);
  }
  attempt.next = engine_.at(engine_.now() + duration, SimEvent{SimEvent::Kind::kFinish, ending, handle});
  scheduler::AttemptEvent event = event_for(handle);
  if (attempt.node >= 0) {
    slot = pool_nodes_->number(attempt.node);
    event.worker = pool_nodes_->node_name(attempt.node);
    event.worker_key = static_cast<std::uint32_t>(attempt.node);
  } else if (attempt.pod < 0 && slot >= 0) {
    event.worker = slot_names_[slot];  // a pod worker is the one submitted to
    event.worker_key = static_cast<std::uint32_t>(slot);
  }
  note(TimelineEntry::Kind::kStarted, handle, slot);
  listener_->on_started(event);
}

void SimCluster::end(scheduler::AttemptHandle handle, std::uint32_t ending) {
  Attempt* found = attempt_of(handle);
  if (found == nullptr) return;
  const int slot = found->pod >= 0 ? -1 : found->slot;  // a Job's: freed with its pod
  const int reported = record_timeline_ ? timeline_slot(*found) : -1;
  if (found->node >= 0) {
    engine_.at(api_ready(engine_.now()) + config_.delete_overhead,
               SimEvent{SimEvent::Kind::kFreeNode, static_cast<std::uint32_t>(found->node),
                        found->shape | pool_nodes_->incarnation(found->node) << 32});
  }
  scheduler::AttemptEvent event = event_for(handle);
  const RecordedEnd* recorded = ending == kRecorded ? recorded_end(*found) : nullptr;
  forget(handle);
  if (slot >= 0) free_slot_later(slot);
  if (ending == kOk) {
    note(TimelineEntry::Kind::kSucceeded, handle, reported);
    listener_->on_succeeded(event);
    return;
  }
  event.exit_code = ending == kExit ? 1 : 0;
  event.reason = ending == kExit ? "exit" : "cancelled";
  if (ending >= kFitted) {
    event.exit_code = fitted_modes_[ending - kFitted]->exit_code;
    event.reason = fitted_modes_[ending - kFitted]->reason;
  }
  if (recorded != nullptr) {
    event.exit_code = recorded->exit_code;
    event.reason = recorded->reason;
  }
  note(TimelineEntry::Kind::kFailed, handle, reported);
  listener_->on_failed(event);
}

int SimCluster::timeline_slot(const Attempt& attempt) const {
  if (attempt.node >= 0) return pool_nodes_->number(attempt.node);
  if (attempt.pod < 0) return attempt.slot;
  return pods_[attempt.pod].exists ? pods_[attempt.pod].slot : -1;
}

void SimCluster::free_slot_later(int slot) {
  engine_.at(api_ready(engine_.now()) + config_.delete_overhead,
             SimEvent{SimEvent::Kind::kFreeSlot, static_cast<std::uint32_t>(slot), 0});
}

void SimCluster::free_slot(int slot) {
  Slot& s = slots_[slot];
  if (!s.held || !s.alive) return;
  s.held = false;
  s.job = 0;
  s.pod = -1;
  released_slot_time_ += engine_.now() - s.held_since;
  note(TimelineEntry::Kind::kSlotFreed, 0, slot);
  free_slots_.push(slot);
  while (!waiting_.empty()) {
    scheduler::AttemptHandle handle = waiting_.front();
    Attempt* found = attempt_of(handle);
    if (found == nullptr || found->phase != Phase::kPending) {
      waiting_.pop_front();
      continue;
    }
    int taken = take_free_slot();
    if (taken < 0) break;
    waiting_.pop_front();
    occupy(taken, handle, *found);
  }
}

void SimCluster::lose_node(int node) {
  note(TimelineEntry::Kind::kNodeLost, 0, node);
  std::vector<scheduler::AttemptHandle> lost;
  for (Slot& s : slots_) {
    if (s.node != node || !s.alive) continue;
    s.alive = false;
    --alive_slots_;
    if (!s.held) continue;
    released_slot_time_ += engine_.now() - s.held_since;
    s.held = false;
    if (s.job != 0) {
      lost.push_back(s.job);
    } else {
      Pod& pod = pods_[s.pod];
      if (pod.exists) {
        if (pod.current != 0 && attempt_of(pod.current) != nullptr) lost.push_back(pod.current);
        pod = Pod{};
      }
    }
  }
  std::sort(lost.begin(), lost.end());
  for (scheduler::AttemptHandle handle : lost) fail_now(handle, "node-lost");
  listener_->on_capacity_changed(alive_slots_, engine_.now());
}

void SimCluster::fail_now(scheduler::AttemptHandle handle, const char* reason) {
  Attempt* found = attempt_of(handle);
  if (found == nullptr) return;
  engine_.cancel(found->next);
  int slot = found->slot;
  scheduler::AttemptEvent event = event_for(handle);
  event.reason = reason;
  event.exit_code = -1;
  note(TimelineEntry::Kind::kFailed, handle, slot);
  forget(handle);
  listener_->on_failed(event);
}

const RecordedEnd* SimCluster::recorded_end(const Attempt& attempt) const {
  auto found = config_.recorded_ends.find(plan_->id(attempt.item));
  if (found == config_.recorded_ends.end() || found->second.empty()) return nullptr;
  const std::size_t index = std::min<std::size_t>(attempt.number, found->second.size()) - 1;
  return &found->second[index];
}

Demand SimCluster::demand_of(const scheduler::PlannedWork& plan, std::size_t item) const {
  Demand demand(resource_index_.size(), 0);
  for (const auto& [name, milli] : plan.requests(item)) {
    auto found = resource_index_.find(name);
    if (found != resource_index_.end()) {
      demand[found->second] = milli;
    } else if (milli > 0) {
      std::string offered;
      for (const auto& [resource, index] : resource_index_) offered += (offered.empty() ? "" : ", ") + resource;
      throw data::Error("item '" + plan.id(item) + "'", "requests " + name + " " + data::readable_quantity(name, milli) +
                                                     ", which no node pool has (they have " + offered + ")");
    }
  }
  return demand;
}

std::vector<SurvivalRisk> SimCluster::check_placeable(const scheduler::PlannedWork& plan) const {
  if (!pool_nodes_) return {};
  // A resource no pool has.
  for (std::size_t k = 0; k < plan.asked_set_count(); ++k) demand_of(plan, plan.first_asking(k));
  check_fits_a_pool(plan, config_.pools.pools);
  return check_survivable(config_.pools.pools, interruption_rates_, plan, durations_);
}

// Pods one after the other mostly ask for the same: the last item's shape is reused when its
// requests are equal, without building a demand and looking it up.
std::uint32_t SimCluster::shape_of(const scheduler::PlannedWork& plan, std::size_t item) {
  const data::Quantities& requests = plan.requests(item);
  if (last_shaped_ != nullptr && (last_shaped_ == &requests || *last_shaped_ == requests)) return shape_of_last_;
  auto [found, added] = shape_index_.try_emplace(demand_of(plan, item), static_cast<std::uint32_t>(shapes_.size()));
  if (added) shapes_.push_back(Shape{found->first, {}, {}});
  last_shaped_ = &requests;
  shape_of_last_ = found->second;
  return found->second;
}

// Waiting pods cancelled or ended meanwhile leave the front of their shape's queue. True when
// pods are still waiting.
bool SimCluster::drop_stale(Shape& shape) {
  while (!shape.waiting.empty()) {
    const Attempt* waiting = attempt_of(shape.waiting.front().second);
    if (waiting != nullptr && waiting->phase == Phase::kPending) return true;
    shape.waiting.pop_front();
  }
  return false;
}

// A pod goes to the best node where its requests fit. Pods of a shape that is already waiting
// fit no node (a shape waits only while no up node has room for it), so they queue behind.
void SimCluster::place_on_pool(scheduler::AttemptHandle handle, Attempt& attempt) {
  attempt.shape = shape_of(*plan_, attempt.item);
  Shape& shape = shapes_[attempt.shape];
  if (!drop_stale(shape)) {
    const int node = pool_nodes_->best_node(shape.demand);
    if (node != PoolNodes::kNone) {
      occupy_node(node, handle, attempt);
      return;
    }
    shape.short_resource = pool_nodes_->short_resource(shape.demand);
  }
  attempt.phase = Phase::kPending;
  shape.waiting.emplace_back(arrivals_++, handle);
  ++short_waits_[shape.short_resource];
  order_room(shape.demand);
}

void SimCluster::occupy_node(int node, scheduler::AttemptHandle handle, Attempt& attempt) {
  pool_nodes_->advance(engine_.now());
  pool_nodes_->take(node, shapes_[attempt.shape].demand);
  attempt.node = node;
  note(TimelineEntry::Kind::kPlaced, handle, pool_nodes_->number(node));
  start_after(draw_startup(attempt), handle, attempt);
}

void SimCluster::free_node(int node, std::uint64_t shape_and_incarnation) {
  // A pod deleted from a node interrupted meanwhile: the node gave everything back then.
  if (!pool_nodes_->up(node) || shape_and_incarnation >> 32 != pool_nodes_->incarnation(node)) return;
  const auto shape = static_cast<std::uint32_t>(shape_and_incarnation);
  pool_nodes_->advance(engine_.now());
  pool_nodes_->give(node, shapes_[shape].demand);
  note(TimelineEntry::Kind::kSlotFreed, 0, pool_nodes_->number(node));
  place_waiting_on(node);
  watch_idle(node);
}

// Room appeared on `node` only (every other node is as it was, and waiting shapes fit none of
// them): waiting pods go there, the longest waiting first among those that fit.
void SimCluster::place_waiting_on(int node) {
  for (;;) {
    Shape* pick = nullptr;
    for (Shape& shape : shapes_) {
      if (!drop_stale(shape) || !pool_nodes_->fits(node, shape.demand)) continue;
      if (pick == nullptr || shape.waiting.front().first < pick->waiting.front().first) pick = &shape;
    }
    if (pick == nullptr) return;
    const scheduler::AttemptHandle handle = pick->waiting.front().second;
    pick->waiting.pop_front();
    occupy_node(node, handle, *attempt_of(handle));
  }
}

// The autoscaler: a pod waiting for room is counted against the room of nodes already ordered;
// when none has room for it, a node of a pool whose machine fits it and that may grow (the
// expander's choice, sim/node_pools.h) is ordered, up after the pool's provision delay (given, or
// drawn from the fitted one).
void SimCluster::order_room(const Demand& demand) {
  auto fits_in = [&](const Demand& room) {
    for (std::size_t r = 0; r < demand.size(); ++r) {
      if (demand[r] > room[r]) return false;
    }
    return true;
  };
  for (OrderedRoom& ordered : ordered_rooms_) {
    if (!fits_in(ordered.room)) continue;
    for (std::size_t r = 0; r < demand.size(); ++r) ordered.room[r] -= demand[r];
    return;
  }
  std::optional<std::size_t> chosen;
  double least_waste = 0;
  for (std::size_t p = 0; p < pool_nodes_->pool_count(); ++p) {
    if (!pool_nodes_->fits_empty(p, demand) || !pool_nodes_->can_grow(p)) continue;
    const Demand& capacity = pool_nodes_->capacity(p);
    double waste = 0;
    int offered = 0;
    for (std::size_t r = 0; r < demand.size(); ++r) {
      if (capacity[r] <= 0) continue;
      waste += static_cast<double>(capacity[r] - demand[r]) / static_cast<double>(capacity[r]);
      ++offered;
    }
    waste /= std::max(1, offered);
    if (!chosen || (config_.pools.expander == Expander::kLeastWaste && waste < least_waste)) {
      chosen = p;
      least_waste = waste;
    }
  }
  if (chosen) {
    Demand room = pool_nodes_->capacity(*chosen);
    for (std::size_t r = 0; r < demand.size(); ++r) room[r] -= demand[r];
    order_node(*chosen, std::move(room));
  }
}

void SimCluster::order_node(std::size_t p, Demand room) {
  const int node = pool_nodes_->order_node(p, engine_.now());
  ordered_rooms_.push_back(OrderedRoom{node, std::move(room)});
  engine_.at(engine_.now() + provision_delay(p), SimEvent{SimEvent::Kind::kNodeUp, static_cast<std::uint32_t>(node), 0});
}

void SimCluster::node_up(int node) {
  pool_nodes_->advance(engine_.now());
  pool_nodes_->bring_up(node, engine_.now());
  ++alive_slots_;
  std::erase_if(ordered_rooms_, [node](const OrderedRoom& ordered) { return ordered.node == node; });
  arm_interruption(node);
  place_waiting_on(node);
  watch_idle(node);
}

// A spot node's life is drawn when it comes up, the nodes up at the start taken as new at 0 (a rate
// is memoryless; a lifetime distribution's node starts a life); on-demand nodes draw nothing.
void SimCluster::arm_interruption(int node) {
  const InterruptionRate& rate = interruption_rates_[static_cast<std::size_t>(pool_nodes_->pool_of(node))];
  if (!(rate.per_node_hour > 0)) return;
  const std::optional<data::Micros> lifetime = draw_lifetime(rate, interruption_rng_);
  if (!lifetime) return;
  engine_.at(engine_.now() + *lifetime, SimEvent{SimEvent::Kind::kNodeInterrupted, static_cast<std::uint32_t>(node),
                                                 pool_nodes_->incarnation(node)});
}

// The node is taken back with its pods: their attempts fail as by node loss (and retry, by the
// retry policy), their retries wait for room and order nodes as any pod does, and a pool left
// below its min orders a replacement, up after its provisioning delay.
void SimCluster::interrupt(int node, std::uint64_t incarnation) {
  if (!pool_nodes_->up(node) || pool_nodes_->incarnation(node) != incarnation) return;
  const auto pool = static_cast<std::size_t>(pool_nodes_->pool_of(node));
  std::vector<scheduler::AttemptHandle> lost;
  flights_->for_each([&](scheduler::AttemptHandle handle, const scheduler::Flight& flight) {
    if (flight.cluster.as<Attempt>().node == node) lost.push_back(handle);
  });
  std::sort(lost.begin(), lost.end());
  pool_nodes_->advance(engine_.now());
  pool_nodes_->lose(node, engine_.now());
  --alive_slots_;
  ++nodes_interrupted_[pool];
  attempts_interrupted_ += lost.size();
  note(TimelineEntry::Kind::kNodeLost, 0, pool_nodes_->number(node));
  for (scheduler::AttemptHandle handle : lost) fail_now(handle, "node-lost");
  if (pool_nodes_->up_nodes(pool) + pool_nodes_->ordered_nodes(pool) < pool_nodes_->pool(pool).min &&
      pool_nodes_->can_grow(pool)) {
    order_node(pool, pool_nodes_->capacity(pool));
  }
}

// The nodes up at the start are idle since 0: one scale-down check per pool stands for theirs (a
// spot pool's nodes each have their own).
void SimCluster::watch_start_nodes() {
  if (!pool_nodes_) return;
  for (int node : spot_start_nodes_) watch_idle(node);
  for (std::size_t pool = 0; pool < pool_nodes_->pool_count(); ++pool) {
    if (pool_nodes_->up_nodes(pool) == 0 || interruption_rates_[pool].per_node_hour > 0) continue;
    engine_.at(config_.pools.scale_down_delay, SimEvent{SimEvent::Kind::kPoolIdle, static_cast<std::uint32_t>(pool), 0});
  }
}

void SimCluster::watch_idle(int node) {
  if (pool_nodes_->pods_on(node) > 0) return;
  engine_.at(engine_.now() + config_.pools.scale_down_delay,
             SimEvent{SimEvent::Kind::kNodeIdle, static_cast<std::uint32_t>(node), pool_nodes_->generation(node)});
}

void SimCluster::node_idle(int node, std::uint64_t generation) {
  if (!pool_nodes_->up(node) || pool_nodes_->pods_on(node) > 0 || generation != pool_nodes_->generation(node)) return;
  const std::size_t pool = static_cast<std::size_t>(pool_nodes_->pool_of(node));
  if (pool_nodes_->up_nodes(pool) <= pool_nodes_->pool(pool).min) return;
  pool_nodes_->take_down(node, engine_.now());
  --alive_slots_;
}

// The scale-down checks of a pool's nodes up since the start, in node order, in one event: the
// others stand for the checks each node had (counted in folded_events()).
void SimCluster::pool_idle(std::size_t pool) {
  folded_events_ += static_cast<std::uint64_t>(pool_nodes_->pool(pool).count) - 1;
  alive_slots_ -= pool_nodes_->take_down_untouched(pool, engine_.now());
}

scheduler::AttemptEvent SimCluster::event_for(scheduler::AttemptHandle handle) const {
  scheduler::AttemptEvent event;
  event.handle = handle;
  event.at = engine_.now();
  return event;
}

void SimCluster::note(TimelineEntry::Kind kind, scheduler::AttemptHandle handle, int slot) {
  if (record_timeline_) timeline_.push_back(TimelineEntry{engine_.now(), kind, handle, slot});
}

}  // namespace millrace::sim
