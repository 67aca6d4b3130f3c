#include "sim/sim_cluster.h"

#include <algorithm>
#include <cstdio>

#include "data/error.h"

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

SimCluster::SimCluster(SimEngine& engine, SimClusterConfig config, DurationModel durations, std::mt19937_64& rng,
                       bool record_timeline)
    : engine_(engine), config_(std::move(config)), durations_(std::move(durations)), rng_(rng),
      record_timeline_(record_timeline) {
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
  std::sort(config_.api_down.begin(), config_.api_down.end(),
            [](const Window& a, const Window& b) { return a.from < b.from; });
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
  Attempt& attempt = attempts_.insert(handle, Attempt{submission.item, -1, Phase::kCreating, -1, 0});
  note(TimelineEntry::Kind::kSubmitted, handle, -1);
  if (submission.worker) {
    attempt.pod = pod_of(submission);
    Pod& pod = pods_[attempt.pod];
    bool created = !pod.exists;
    if (created) pod = Pod{pod.name, true};
    pod.current = handle;
    if (pod.up) {
      attempt.phase = Phase::kStarting;
      attempt.next = engine_.at(engine_.now(), SimEvent{SimEvent::Kind::kStart, 0, handle});
      return;
    }
    if (!created) return;  // its pod is being created: it starts this attempt once up
  }
  attempt.next = engine_.at(api_ready(engine_.now()) + config_.create_overhead,
                            SimEvent{SimEvent::Kind::kPlace, 0, handle});
}

void SimCluster::cancel(scheduler::AttemptHandle handle) {
  Attempt* attempt = attempts_.find(handle);
  if (attempt == nullptr) return;
  engine_.cancel(attempt->next);
  if (attempt->pod >= 0 && attempt->phase != Phase::kRunning) {
    // A worker pod not up yet is given up with its attempt; a running one stays for the next.
    remove_pod(attempt->pod);
  }
  attempt->next = engine_.at(engine_.now(), SimEvent{SimEvent::Kind::kFinish, kCancelled, handle});
}

// The pod of a submission's worker, found by its lane when it has one (no name hashing per attempt).
int SimCluster::pod_of(const scheduler::Submission& submission) {
  auto lane = static_cast<std::size_t>(submission.lane);
  if (submission.lane >= 0 && lane < lane_pods_.size() && lane_pods_[lane] >= 0) return lane_pods_[lane];
  auto [it, named] = pod_index_.try_emplace(*submission.worker, static_cast<int>(pods_.size()));
  if (named) pods_.push_back(Pod{*submission.worker});
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
  pods_[pod] = Pod{pods_[pod].name};
  if (slot >= 0) free_slot_later(slot);
}

void SimCluster::handle(const SimEvent& event) {
  switch (event.kind) {
    case SimEvent::Kind::kPlace: place(event.value); break;
    case SimEvent::Kind::kStart: start(event.value); break;
    case SimEvent::Kind::kFinish: end(event.value, event.index); break;
    case SimEvent::Kind::kFreeSlot: free_slot(static_cast<int>(event.index)); break;
    case SimEvent::Kind::kNodeLoss: lose_node(static_cast<int>(event.index)); break;
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

data::Micros SimCluster::draw_startup() {
  const auto& samples = config_.startup.samples;
  if (samples.empty()) return config_.startup.constant;
  return samples[rng_() % samples.size()];
}

void SimCluster::place(scheduler::AttemptHandle handle) {
  Attempt* attempt = attempts_.find(handle);
  if (attempt == nullptr) return;
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
  attempt.phase = Phase::kStarting;
  attempt.next = engine_.at(engine_.now() + draw_startup(), SimEvent{SimEvent::Kind::kStart, 0, handle});
}

void SimCluster::start(scheduler::AttemptHandle handle) {
  Attempt* found = attempts_.find(handle);
  if (found == nullptr) return;
  Attempt& attempt = *found;
  int slot = attempt.slot;
  if (attempt.pod >= 0) {
    Pod& pod = pods_[attempt.pod];
    pod.up = true;
    slot = pod.slot;
  }
  attempt.phase = Phase::kRunning;
  data::Micros duration = std::max<data::Micros>(0, durations_(*attempt.item));
  std::uint32_t ending = kOk;
  if (config_.fail_prob > 0 && unit_draw(rng_) < config_.fail_prob) {
    ending = kExit;
    duration = static_cast<data::Micros>(unit_draw(rng_) * static_cast<double>(duration));
  }
  attempt.next = engine_.at(engine_.now() + duration, SimEvent{SimEvent::Kind::kFinish, ending, handle});
  note(TimelineEntry::Kind::kStarted, handle, slot);
  scheduler::AttemptEvent event = event_for(handle);
  if (attempt.pod < 0 && slot >= 0) event.worker = slot_names_[slot];  // a pod worker is the one submitted to
  listener_->on_started(event);
}

void SimCluster::end(scheduler::AttemptHandle handle, std::uint32_t ending) {
  Attempt* found = attempts_.find(handle);
  if (found == nullptr) return;
  int slot = found->pod >= 0 ? -1 : found->slot;
  int reported = slot;
  if (found->pod >= 0 && pods_[found->pod].exists) reported = pods_[found->pod].slot;
  scheduler::AttemptEvent event = event_for(handle);
  attempts_.erase(handle);
  if (slot >= 0) free_slot_later(slot);
  if (ending == kOk) {
    note(TimelineEntry::Kind::kSucceeded, handle, reported);
    listener_->on_succeeded(event);
    return;
  }
  event.exit_code = ending == kExit ? 1 : 0;
  event.reason = ending == kExit ? "exit" : "cancelled";
  note(TimelineEntry::Kind::kFailed, handle, reported);
  listener_->on_failed(event);
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
    Attempt* found = attempts_.find(handle);
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
        if (pod.current != 0 && attempts_.find(pod.current) != nullptr) lost.push_back(pod.current);
        pod = Pod{pod.name};
      }
    }
  }
  std::sort(lost.begin(), lost.end());
  for (scheduler::AttemptHandle handle : lost) fail_now(handle, "node-lost");
  listener_->on_capacity_changed(alive_slots_, engine_.now());
}

void SimCluster::fail_now(scheduler::AttemptHandle handle, const char* reason) {
  Attempt* found = attempts_.find(handle);
  if (found == nullptr) return;
  engine_.cancel(found->next);
  int slot = found->slot;
  scheduler::AttemptEvent event = event_for(handle);
  event.reason = reason;
  event.exit_code = -1;
  note(TimelineEntry::Kind::kFailed, handle, slot);
  attempts_.erase(handle);
  listener_->on_failed(event);
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
