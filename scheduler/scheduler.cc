#include "scheduler/scheduler.h"

#include <algorithm>

#include "data/error.h"
#include "data/run_tally.h"

namespace millrace::scheduler {

namespace {
constexpr const char* kStateNames[] = {"waiting", "ready", "in-flight", "succeeded", "failed", "blocked"};
const std::string kNoName;
}  // namespace

const char* to_string(ItemState state) { return kStateNames[static_cast<int>(state)]; }

// Out of line: the check of every event's handle stays small enough to inline.
void Scheduler::throw_never_submitted(AttemptHandle handle, const char* kind) const {
  throw data::Error(options_.plan_name,
                    std::string("the cluster reported '") + kind + "' for attempt handle " + std::to_string(handle) +
                        ", which was never submitted (handles so far: 1 to " + std::to_string(next_handle_ - 1) + ")");
}

Scheduler::Scheduler(std::vector<data::WorkItem> plan, SchedulerOptions options, Cluster& cluster, Clock& clock)
    : Scheduler(std::make_shared<const PlannedWork>(plan, options.plan_name), options, cluster, clock) {}

Scheduler::Scheduler(std::shared_ptr<const PlannedWork> plan, SchedulerOptions options, Cluster& cluster, Clock& clock)
    : plan_(std::move(plan)),
      work_(*plan_),
      graph_(plan_->graph()),
      options_(std::move(options)),
      cluster_(cluster),
      clock_(clock),
      queue_(work_, options_.order),
      policy_(make_policy(options_.policy, options_.params)),
      records_(work_.size()) {
  if (options_.retry.max_attempts < 1) {
    throw data::Error(options_.plan_name, "retry policy needs max attempts >= 1");
  }
  if (graph_.has_dependencies()) {
    waiting_on_.resize(work_.size());
    for (std::size_t i = 0; i < work_.size(); ++i) waiting_on_[i] = graph_.predecessor_count(i);
  }
  for (std::size_t i = 0; i < work_.size(); ++i) remaining_predicted_ += work_.predicted(i);
  cluster_.set_listener(this);
  cluster_.share_flights(flights_);
}

Scheduler::Scheduler(std::vector<data::WorkItem> plan, SchedulerOptions options, Cluster& cluster, Clock& clock,
                     const SchedulerSnapshot& resume)
    : Scheduler(std::move(plan), std::move(options), cluster, clock) {
  if (resume.items.size() != work_.size()) {
    throw data::Error(options_.plan_name, "snapshot has " + std::to_string(resume.items.size()) +
                                              " items, the plan " + std::to_string(work_.size()));
  }
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < work_.size(); ++i) {
    const std::string id = work_.id(i);
    if (resume.items[i].id != id) {
      throw data::Error(options_.plan_name, "snapshot item " + std::to_string(i) + " is '" + resume.items[i].id +
                                                "', the plan's is '" + id + "'");
    }
    index_of[id] = i;
    records_[i].attempts = static_cast<std::uint32_t>(resume.items[i].attempts);
    if (resume.items[i].cancelled != 0) trails_[static_cast<std::uint32_t>(i)].cancelled = resume.items[i].cancelled;
  }
  for (std::size_t i = 0; i < work_.size(); ++i) {
    ItemState state = resume.items[i].state;
    if (state == ItemState::kSucceeded) {
      remaining_predicted_ -= work_.predicted(i);
      ++succeeded_;
      for (std::size_t next : graph_.dependents(i)) --waiting_on_[next];
    }
    if (state == ItemState::kSucceeded || state == ItemState::kFailed || state == ItemState::kBlocked) {
      records_[i].state = state;
      ++settled_;
    }
  }
  policy_->attach(*this);
  for (const InFlight& f : resume.in_flight) {
    std::size_t index = index_of.at(f.item_id);
    records_[index].state = ItemState::kInFlight;
    std::uint32_t worker = f.worker.empty() ? kNoWorkerRecord : worker_named(f.worker);
    flights_.insert(f.handle, Flight{{static_cast<std::uint32_t>(index), policy_->acquire(work_.type(index)),
                                      f.attempt, worker, f.submitted, f.started}, {}});
  }
  next_handle_ = resume.next_handle;
  run_failed_ = resume.run_failed;
  started_ = true;
  for (std::size_t i = 0; i < work_.size(); ++i) {
    if (records_[i].state == ItemState::kWaiting && waiting_on(i) == 0) make_available(i);
  }
  dispatch();
}

void Scheduler::tally_attempts(data::RunTally& tally, bool keep_spans) {
  tally_ = &tally;
  keep_spans_ = keep_spans;
}

void Scheduler::start() {
  if (started_) return;
  started_ = true;
  if (keep_spans_) attempt_spans_.reserve(work_.size());
  policy_->attach(*this);
  for (std::size_t i = 0; i < work_.size(); ++i) {
    if (waiting_on(i) == 0) make_available(i);
  }
  dispatch();
}

void Scheduler::stop() {
  if (stopping_) return;
  stopping_ = true;
  std::vector<AttemptHandle> handles;
  flights_.for_each([&](AttemptHandle handle, const Flight&) { handles.push_back(handle); });
  std::sort(handles.begin(), handles.end());
  for (AttemptHandle handle : handles) cluster_.cancel(handle);
}

void Scheduler::wake() {
  if (started_) dispatch();
}

void Scheduler::make_available(std::size_t index) {
  data::Micros at = work_.submit_at(index);
  if (at > 0 && at > clock_.now()) {  // no submit time (0) is never ahead: the clock is not asked
    records_[index].state = ItemState::kWaiting;
    clock_.call_at(at, [this, index] {
      enqueue(index);
      dispatch();
    });
    return;
  }
  enqueue(index);
}

void Scheduler::enqueue(std::size_t index) {
  records_[index].state = ItemState::kReady;
  queue_.push(index);
}

void Scheduler::dispatch() {
  if (stopping_) return;
  if (dispatching_) {
    dispatch_again_ = true;
    return;
  }
  dispatching_ = true;
  do {
    dispatch_again_ = false;
    while (!policy_->saturated() && !queue_.empty()) {
      std::size_t index = queue_.pop_first([this](std::size_t i) { return policy_->admits(work_.type(i)); });
      if (index == WorkQueue::npos) break;
      launch(index);
    }
  } while (dispatch_again_);
  dispatching_ = false;
  if (finished() && !finish_announced_) {
    finish_announced_ = true;
    policy_->on_run_finished();
  } else if (queue_.empty() && settled_ + flights_.size() == work_.size()) {
    policy_->on_queue_drained();
  }
}

void Scheduler::launch(std::size_t index) {
  ItemRecord& record = records_[index];
  int lane = policy_->acquire(work_.type(index));
  std::uint32_t worker = lane == kNoLane ? kNoWorkerRecord : lane_worker(lane);
  AttemptHandle handle = next_handle_++;
  record.state = ItemState::kInFlight;
  ++record.attempts;
  const int attempt = static_cast<int>(record.attempts);
  const data::Micros now = clock_.now();
  Flight& flight = flights_.add(handle);  // the cluster's room is the cluster's to fill
  static_cast<CoreFlight&>(flight) = CoreFlight{static_cast<std::uint32_t>(index), lane, attempt, worker, now, {}};
  if (observer_) notify(handle, flight, data::Outcome::kRunning, now, nullptr);
  Submission submission{handle, &work_, static_cast<std::uint32_t>(index), attempt, {}, lane, &flight};
  if (lane != kNoLane) submission.worker = policy_->worker_name(lane);
  cluster_.submit(submission);
}

void Scheduler::on_started(const AttemptEvent& event) {
  Flight* flight = flight_of(event, "started");
  // The first report of a start holds: a repeated one (a re-attached cluster reporting what it
  // finds running) moves neither the start nor the worker.
  if (flight == nullptr || flight->started) return;
  flight->started = event.at;
  if (event.worker_key != AttemptEvent::kNoWorkerKey && !event.worker.empty()) {
    flight->worker = keyed_worker(event);
  } else if (!event.worker.empty() &&
             (flight->worker == kNoWorkerRecord || worker_names_[flight->worker] != event.worker)) {
    flight->worker = worker_named(event.worker);
  } else if (flight->worker == kNoWorkerRecord) {
    flight->worker = worker_named("");
  }
  WorkerRecord& w = workers_[flight->worker];
  w.started = true;
  w.busy = true;
  w.item = flight->item;
  if (tally_ != nullptr) tally_->started(event.at, logged_worker(flight->worker) != kNoWorkerRecord);
  if (observer_) {
    if (event.placed || !event.node.empty() || event.unschedulable) {
      placements_[event.handle] = Placement{event.placed, std::string(event.node), event.unschedulable};
    }
    notify(event.handle, *flight, data::Outcome::kRunning, event.at, &event);
  }
}

void Scheduler::on_succeeded(const AttemptEvent& event) {
  finish(flight_of(event, "succeeded"), event, data::Outcome::kSucceeded);
}

void Scheduler::on_failed(const AttemptEvent& event) {
  finish(flight_of(event, "failed"), event,
         event.reason == "cancelled" ? data::Outcome::kCancelled : data::Outcome::kFailed);
}

void Scheduler::on_capacity_changed(int slots, data::Micros) {
  policy_->on_capacity_changed(slots);
  dispatch();
}

void Scheduler::finish(const Flight* found, const AttemptEvent& event, data::Outcome outcome) {
  if (found == nullptr) return;
  CoreFlight flight = *found;  // the scheduler's part, not the cluster's room
  flights_.erase(event.handle);
  const bool start_reported = flight.started.has_value();
  // A success whose start was never reported (lost, or overtaken by the end) ran nonetheless:
  // it is taken to have started when submitted, the earliest it can have, not to have lasted 0.
  if (outcome == data::Outcome::kSucceeded && !flight.started) flight.started = flight.submitted;
  std::size_t index = flight.item;
  ItemRecord& record = records_[index];
  // A success's reason is never read (its detail and trail take none): only others are interned.
  const std::uint32_t reason = outcome == data::Outcome::kSucceeded ? 0 : reason_named(event.reason);
  if (observer_) notify(event.handle, flight, outcome, event.at, &event);
  const data::AttemptSpan span{flight.item, logged_worker(flight.worker), flight.started.value_or(event.at), event.at,
                               outcome};
  if (keep_spans_) attempt_spans_.push_back(span);
  if (tally_ != nullptr) tally_->ended(span, start_reported);
  work_time_ += event.work_time.value_or(0);
  const std::size_t position = finished_attempts_++;
  if (flight.attempt != 1 || event.exit_code != 0 || reason != 0 || event.work_time) {
    attempt_details_.push_back(AttemptDetail{position, flight.attempt, event.exit_code, reason, event.work_time});
  }
  if (flight.started && flight.worker != kNoWorkerRecord) {
    WorkerRecord& w = workers_[flight.worker];
    w.busy = false;
    w.busy_time += event.at - *flight.started;
    ++(outcome == data::Outcome::kSucceeded ? w.succeeded : w.failed);
  }
  if (outcome != data::Outcome::kSucceeded) {
    // A succeeded item's trail is never read: only failed and blocked ones are shown.
    ItemTrail& trail = trails_[flight.item];
    trail.last_worker = flight.worker;
    trail.last_reason = reason;
    trail.cancelled += outcome == data::Outcome::kCancelled;
  }
  policy_->release(work_.type(index), flight.lane);

  if (outcome == data::Outcome::kSucceeded) {
    settle(index, ItemState::kSucceeded);
    ++succeeded_;
    remaining_predicted_ -= work_.predicted(index);
    if (!waiting_on_.empty()) {  // else no item depends on another
      for (std::size_t next : graph_.dependents(index)) {
        if (--waiting_on_[next] == 0 && records_[next].state == ItemState::kWaiting) make_available(next);
      }
    }
    policy_->progressed();
  } else if (stopping_ && outcome == data::Outcome::kCancelled) {
    record.state = ItemState::kWaiting;  // stopped, not failed: a resume runs it again
  } else if (static_cast<int>(record.attempts) - cancelled(index) < options_.retry.max_attempts &&
             options_.retry.retries(event.reason)) {
    data::Micros delay = options_.retry.delay_before(static_cast<int>(record.attempts) + 1);
    record.state = ItemState::kWaiting;
    if (delay == 0) {
      enqueue(index);
    } else {
      clock_.call_at(event.at + delay, [this, index] {
        enqueue(index);
        dispatch();
      });
    }
  } else {
    give_up(index);
    policy_->progressed();
  }
  dispatch();
}

// The item exhausted its attempts: it fails (and the run with it, per option) and everything
// that depends on it, directly or not, is blocked; the other items carry on.
void Scheduler::give_up(std::size_t index) {
  settle(index, ItemState::kFailed);
  if (options_.on_exhausted == OnExhausted::kFailRun) run_failed_ = true;
  std::vector<std::size_t> stack(graph_.dependents(index).begin(), graph_.dependents(index).end());
  while (!stack.empty()) {
    std::size_t next = stack.back();
    stack.pop_back();
    if (records_[next].state != ItemState::kWaiting) continue;
    trails_[static_cast<std::uint32_t>(next)].last_reason = reason_named("dependency failed");
    settle(next, ItemState::kBlocked);
    stack.insert(stack.end(), graph_.dependents(next).begin(), graph_.dependents(next).end());
  }
}

void Scheduler::settle(std::size_t index, ItemState state) {
  records_[index].state = state;
  ++settled_;
}

// Tells the observer (a real run's recorder) of an attempt's transition. Callers check there is
// one first: a simulation has none, and building the attempt would cost it on every transition.
void Scheduler::notify(AttemptHandle handle, const CoreFlight& flight, data::Outcome outcome, data::Micros end,
                       const AttemptEvent* event) {
  bool done = outcome != data::Outcome::kRunning;
  data::Attempt attempt;
  attempt.item_id = work_.id(flight.item);
  attempt.number = flight.attempt;
  attempt.worker = worker_name(flight.worker);
  attempt.start = flight.started.value_or(done ? end : flight.submitted);
  attempt.end = end;
  attempt.outcome = outcome;
  if (done && event != nullptr) {
    attempt.exit_code = event->exit_code;
    attempt.failure_reason = outcome == data::Outcome::kSucceeded ? "" : std::string(event->reason);
    attempt.work_time = event->work_time;
  }
  auto placement = placements_.find(handle);
  if (!done && event != nullptr) {
    attempt.placed = event->placed;
    attempt.node = std::string(event->node);
    attempt.unschedulable = event->unschedulable;
  } else if (placement != placements_.end()) {
    attempt.placed = placement->second.placed;
    attempt.node = placement->second.node;
    attempt.unschedulable = placement->second.unschedulable;
  }
  // Phases are in order (submitted <= unschedulable <= placed <= start), whatever a cluster's
  // clock reads.
  attempt.submitted = std::min(flight.submitted, attempt.start);
  if (attempt.placed) attempt.placed = std::clamp(*attempt.placed, *attempt.submitted, attempt.start);
  if (attempt.unschedulable) {
    attempt.unschedulable = std::clamp(*attempt.unschedulable, *attempt.submitted, attempt.placed.value_or(attempt.start));
  }
  if (done && placement != placements_.end()) placements_.erase(placement);
  observer_(handle, attempt);
}

std::vector<data::Attempt> Scheduler::attempts() const {
  std::vector<data::Attempt> all;
  all.reserve(attempt_spans_.size());
  for (std::size_t i = 0; i < attempt_spans_.size(); ++i) all.push_back(attempt(i));
  return all;
}

data::Attempt Scheduler::attempt(const data::AttemptSpan& span, std::size_t position) const {
  auto kept = std::lower_bound(attempt_details_.begin(), attempt_details_.end(), position,
                               [](const AttemptDetail& d, std::size_t p) { return d.position < p; });
  const AttemptDetail detail =
      kept != attempt_details_.end() && kept->position == position ? *kept : AttemptDetail{position};
  data::Attempt a;
  a.item_id = work_.id(span.item);
  a.number = detail.number;
  a.worker = worker_name(span.worker);
  a.start = span.start;
  a.end = span.end;
  a.outcome = span.outcome;
  a.exit_code = detail.exit_code;
  a.failure_reason = reasons_[detail.reason];
  a.work_time = detail.work_time;
  return a;
}

const std::string& Scheduler::worker_name(std::uint32_t worker) const {
  return worker == kNoWorkerRecord ? kNoName : worker_names_[worker];
}

std::uint32_t Scheduler::worker_named(std::string_view name) {
  auto [found, added] = worker_index_.try_emplace(std::string(name), static_cast<std::uint32_t>(workers_.size()));
  if (added) {
    workers_.push_back(WorkerRecord{.named = !name.empty()});
    worker_names_.push_back(found->first);
  }
  return found->second;
}

std::uint32_t Scheduler::name_lane_worker(int lane) {
  auto at = static_cast<std::size_t>(lane);
  if (at >= lane_workers_.size()) lane_workers_.resize(at + 1, kNoWorkerRecord);
  lane_workers_[at] = worker_named(policy_->worker_name(lane));
  return lane_workers_[at];
}

std::uint32_t Scheduler::keyed_worker(const AttemptEvent& event) {
  if (event.worker_key >= keyed_workers_.size()) keyed_workers_.resize(event.worker_key + 1, kNoWorkerRecord);
  std::uint32_t& worker = keyed_workers_[event.worker_key];
  if (worker == kNoWorkerRecord) worker = worker_named(event.worker);
  return worker;
}

std::uint32_t Scheduler::reason_named(std::string_view reason) {
  if (reason.empty()) return 0;
  auto [found, added] = reason_index_.try_emplace(std::string(reason), static_cast<std::uint32_t>(reasons_.size()));
  if (added) reasons_.push_back(found->first);
  return found->second;
}

InFlight Scheduler::in_flight_record(AttemptHandle handle, const CoreFlight& flight) const {
  return InFlight{handle, work_.id(flight.item), flight.attempt, worker_name(flight.worker), flight.submitted,
                  flight.started};
}

std::string Scheduler::label(std::size_t index) const {
  const data::Range* range = work_.range(index);
  return range != nullptr ? range->text() : work_.id(index);
}

std::string Scheduler::end_count_label(std::size_t index) const {
  const data::Range* range = work_.range(index);
  return range != nullptr ? range->end_count() : work_.id(index);
}

int Scheduler::cancelled(std::size_t index) const {
  auto trail = trails_.find(static_cast<std::uint32_t>(index));
  return trail == trails_.end() ? 0 : trail->second.cancelled;
}

StatusReport Scheduler::status() const {
  StatusReport report;
  report.at = clock_.now();
  report.policy = options_.policy;
  report.target = policy_->target();
  report.num_items = work_.size();
  report.num_remain = work_.size() - settled_;
  report.num_succeeded = succeeded_;
  report.run_failed = run_failed_;
  for (std::size_t i = 0; i < work_.size(); ++i) {
    const ItemRecord& r = records_[i];
    if (r.state == ItemState::kFailed || r.state == ItemState::kBlocked) {
      auto found = trails_.find(static_cast<std::uint32_t>(i));
      const ItemTrail trail = found == trails_.end() ? ItemTrail{} : found->second;
      report.jobs_failed.push_back(FailedJob{work_.id(i), label(i), worker_name(trail.last_worker),
                                             static_cast<int>(r.attempts), reasons_[trail.last_reason]});
    }
    if (r.state == ItemState::kInFlight) report.jobs_in_progress.push_back(end_count_label(i));
  }
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const WorkerRecord& w = workers_[i];
    if (!w.started) continue;
    report.workers.push_back(WorkerStatus{worker_names_[i], w.busy, w.busy ? label(w.item) : std::string(),
                                          w.busy_time, w.succeeded, w.failed});
  }
  std::sort(report.workers.begin(), report.workers.end(),
            [](const WorkerStatus& a, const WorkerStatus& b) { return a.name < b.name; });
  return report;
}

SchedulerSnapshot Scheduler::snapshot() const {
  SchedulerSnapshot snap;
  snap.items.reserve(work_.size());
  for (std::size_t i = 0; i < work_.size(); ++i) {
    ItemState state = records_[i].state;
    // Queued and backing-off items are simply waiting again after a restart.
    if (state == ItemState::kReady || state == ItemState::kInFlight) state = ItemState::kWaiting;
    snap.items.push_back(ItemSnapshot{work_.id(i), state, static_cast<int>(records_[i].attempts), cancelled(i)});
  }
  flights_.for_each(
      [&](AttemptHandle handle, const Flight& flight) { snap.in_flight.push_back(in_flight_record(handle, flight)); });
  std::sort(snap.in_flight.begin(), snap.in_flight.end(),
            [](const InFlight& a, const InFlight& b) { return a.handle < b.handle; });
  snap.next_handle = next_handle_;
  snap.run_failed = run_failed_;
  return snap;
}

}  // namespace millrace::scheduler
