#include "cluster_adapter/kubernetes/kubernetes_cluster.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <set>

#include "cluster_adapter/kubernetes/job_deletion.h"
#include "cluster_adapter/kubernetes/job_history.h"
#include "cluster_adapter/kubernetes/job_view.h"
#include "cluster_adapter/kubernetes/json_fields.h"

namespace millrace::cluster_adapter {

using nlohmann::json;

namespace {

// What the scheduler is told of an attempt: started (exit code 0, no reason), succeeded or failed.
scheduler::AttemptEvent event_at(scheduler::AttemptHandle handle, data::Micros at, std::string_view worker,
                                 int exit_code, std::string_view reason) {
  scheduler::AttemptEvent event;
  event.handle = handle;
  event.at = at;
  event.worker = worker;
  event.exit_code = exit_code;
  event.reason = reason;
  return event;
}

std::string label(const json& object, const char* key) {
  return text_field(object_field(object_field(object, "metadata"), "labels"), key);
}


// The attempt label's number; 0 (no attempt of this run) when it is not a positive int.
int attempt_number(const std::string& text) {
  int number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  return error == std::errc() && end == text.data() + text.size() && number > 0 ? number : 0;
}

}  // namespace

KubernetesCluster::KubernetesCluster(KubeClient client, JobTemplate job_template, KubernetesClusterOptions options,
                                     const scheduler::Clock& clock)
    : client_(std::move(client)),
      template_(std::move(job_template)),
      options_(std::move(options)),
      clock_(clock),
      health_(clock) {
  options_.backoff.max_attempts = 0;
  std::string selector = std::string(kRunLabel) + "=" + dns_label(options_.run);
  auto handlers = [this](Note::Kind list_kind, Note::Kind event_kind, std::string source) {
    return ReflectorHandlers{
        [this, list_kind](std::vector<json> items) { push({list_kind, "", {}, std::move(items), 0, ""}); },
        [this, event_kind](const std::string& type, const json& object) { push({event_kind, type, object, {}, 0, ""}); },
        [this, source](const std::string& problem) { health_.report(source, problem); }};
  };
  jobs_ = std::make_unique<Reflector>(client_, client_.jobs_path(), selector,
                                      handlers(Note::Kind::kJobList, Note::Kind::kJobEvent, "watch jobs"),
                                      options_.backoff, options_.watch_timeout_seconds);
  pods_ = std::make_unique<Reflector>(client_, client_.pods_path(),
                                      selector, handlers(Note::Kind::kPodList, Note::Kind::kPodEvent, "watch pods"),
                                      options_.backoff, options_.watch_timeout_seconds);
  publish_status();
}

KubernetesCluster::~KubernetesCluster() {
  stop_.request_stop();
  jobs_.reset();
  pods_.reset();
}

void KubernetesCluster::push(Note note) {
  {
    std::lock_guard lock(mutex_);
    inbox_.push_back(std::move(note));
  }
  arrived_.notify_one();
}

// ---- the request thread ----------------------------------------------------------------------

void KubernetesCluster::send_create(scheduler::AttemptHandle handle, const json& body, std::stop_token stop) {
  auto on_retry = [this](const KubeApiError& error, data::Micros) { health_.failed("requests", error.what()); };
  try {
    client_.call("POST", client_.jobs_path(), body, stop, on_retry);
    health_.answered("requests");
    push({Note::Kind::kCreated, "", {}, {}, handle, ""});
  } catch (const KubeApiError& error) {
    if (error.reason() == "Stopped") throw;
    if (error.status() == 409 && error.reason() == "AlreadyExists") {
      // The same deterministic name: an earlier try of this very create got through.
      health_.answered("requests");
      push({Note::Kind::kCreated, "", {}, {}, handle, ""});
    } else {
      health_.rejected("requests", error.what());
      push({Note::Kind::kCreateFailed, "", {}, {}, handle, error.what()});
    }
  }
}

void KubernetesCluster::delete_job(const std::string& name) {
  requests_.push([this, name](std::stop_token stop) {
    delete_job_in_background(client_, name, health_, stop);
  });
}

// ---- the Cluster seam (poll thread) --------------------------------------------------------

void KubernetesCluster::submit(const scheduler::Submission& submission) {
  Attempt attempt;
  attempt.submission = submission;
  attempt.name = job_name(options_.run, submission.item_id(), submission.attempt);
  by_name_[attempt.name] = submission.handle;
  attempts_[submission.handle] = std::move(attempt);
  waiting_.push_back(submission.handle);
  dispatch_waiting();
  publish_status();
}

void KubernetesCluster::adopt(const scheduler::Submission& submission) {
  Attempt attempt;
  attempt.submission = submission;
  attempt.name = job_name(options_.run, submission.item_id(), submission.attempt);
  attempt.state = State::kCreated;
  attempt.adopted = true;
  attempt.waiting_since = clock_.now();
  by_name_[attempt.name] = submission.handle;
  attempts_[submission.handle] = std::move(attempt);
  publish_status();
}

void KubernetesCluster::cancel(scheduler::AttemptHandle handle) {
  auto it = attempts_.find(handle);
  if (it == attempts_.end() || it->second.state == State::kDone) return;
  Attempt& attempt = it->second;
  if (attempt.state == State::kWaiting) {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), handle));
  } else {
    delete_job(attempt.name);
  }
  attempt.state = State::kDone;
  cancelled_.emplace_back(handle, attempt.name);
  ended_.push_back(handle);
  publish_status();
}

int KubernetesCluster::in_flight() const {
  return static_cast<int>(std::count_if(attempts_.begin(), attempts_.end(),
                                        [](const auto& a) { return a.second.state != State::kDone; }));
}

void KubernetesCluster::dispatch_waiting() {
  int created = static_cast<int>(std::count_if(attempts_.begin(), attempts_.end(), [](const auto& a) {
    return a.second.state == State::kCreating || a.second.state == State::kCreated;
  }));
  for (auto it = waiting_.begin(); it != waiting_.end() && created < options_.max_concurrency;) {
    Attempt& attempt = attempts_.at(*it);
    json body;
    try {
      body = template_.render(options_.run, client_.config().namespace_name, attempt.submission,
                              options_.active_deadline_seconds);
    } catch (const data::Error& error) {
      attempt.state = State::kCreating;
      push({Note::Kind::kCreateFailed, "", {}, {}, attempt.submission.handle, error.what()});
      it = waiting_.erase(it);
      ++created;
      continue;
    }
    attempt.state = State::kCreating;
    attempt.waiting_since = clock_.now();
    requests_.push([this, handle = attempt.submission.handle, body = std::move(body)](std::stop_token stop) {
      send_create(handle, body, stop);
    });
    it = waiting_.erase(it);
    ++created;
  }
}

void KubernetesCluster::poll(data::Micros max_wait) {
  std::deque<Note> notes;
  {
    std::unique_lock lock(mutex_);
    if (cancelled_.empty() && max_wait > 0) {
      arrived_.wait_for(lock, std::chrono::microseconds(max_wait), [&] { return !inbox_.empty(); });
    }
    notes.swap(inbox_);
  }
  while (!cancelled_.empty()) {
    auto [handle, name] = cancelled_.front();
    cancelled_.pop_front();
    if (listener_) {
      listener_->on_failed(event_at(handle, clock_.now(), name, 0, "cancelled"));
    }
  }
  for (auto& note : notes) handle_note(note);
  report_held_ends();
  forget_ended();
  dispatch_waiting();
  trim_history();
  publish_status();
}

void KubernetesCluster::forget_ended() {
  for (scheduler::AttemptHandle handle : ended_) {
    auto it = attempts_.find(handle);
    if (it == attempts_.end()) continue;
    auto named = by_name_.find(it->second.name);
    if (named != by_name_.end() && named->second == handle) by_name_.erase(named);
    attempts_.erase(it);
  }
  ended_.clear();
}

// ---- what the cluster said (poll thread) ---------------------------------------------------

void KubernetesCluster::handle_note(Note& note) {
  switch (note.kind) {
    case Note::Kind::kCreated: {
      auto it = attempts_.find(note.handle);
      if (it != attempts_.end() && it->second.state == State::kCreating) it->second.state = State::kCreated;
      break;
    }
    case Note::Kind::kCreateFailed: {
      auto it = attempts_.find(note.handle);
      if (it != attempts_.end() && it->second.state == State::kCreating) {
        report_end(it->second, false, "create-rejected: " + note.problem);
      }
      break;
    }
    case Note::Kind::kJobList: {
      std::set<std::string> present;
      for (const auto& job : note.items) {
        present.insert(name_of(job));
        observe_job(job);
      }
      for (auto it = finished_.begin(); it != finished_.end();) {
        it = present.count(it->first) ? std::next(it) : finished_.erase(it);
      }
      for (auto& [handle, attempt] : attempts_) {
        // Seen before (or adopted) and now absent from a newer list: deleted behind the run's
        // back. A Job created but not yet seen may simply be newer than the list.
        if (attempt.state == State::kCreated && (attempt.seen || attempt.adopted) && !present.count(attempt.name)) {
          job_gone(attempt.name, "lost");
        }
      }
      break;
    }
    case Note::Kind::kJobEvent:
      if (note.type == "DELETED") {
        finished_.erase(name_of(note.object));
        job_gone(name_of(note.object), "deleted");
      } else {
        observe_job(note.object);
      }
      break;
    case Note::Kind::kPodList:
      for (const auto& pod : note.items) observe_pod(pod);
      break;
    case Note::Kind::kPodEvent:
      if (note.type != "DELETED") observe_pod(note.object);
      break;
  }
}

void KubernetesCluster::observe_job(const json& job) {
  JobView view = view_job(job);
  if (view.terminal()) {
    auto [it, inserted] = finished_.try_emplace(view.name);
    if (inserted) {
      it->second.succeeded = view.phase == JobPhase::kSucceeded;
      it->second.at = view.finished.value_or(0);
      it->second.seen = ++finish_order_;
    }
  }
  auto found = by_name_.find(view.name);
  if (found == by_name_.end()) return;
  Attempt& attempt = attempts_.at(found->second);
  if (attempt.state == State::kDone) return;
  attempt.seen = true;
  if (attempt.state == State::kCreating) attempt.state = State::kCreated;
  if (!view.terminal() || attempt.held_end) return;
  Attempt::End end{view.phase == JobPhase::kSucceeded, view.failure_reason, clock_.now()};
  if (!end.succeeded && end.reason != "exit") {
    report_end(attempt, false, end.reason);  // the pod was killed: no exit code to wait for
  } else if (attempt.pod_told(end)) {
    report_end(attempt, end.succeeded, end.reason);
  } else {
    attempt.held_end = end;
  }
}

void KubernetesCluster::report_held_ends() {
  data::Micros now = clock_.now();
  for (auto& [handle, attempt] : attempts_) {
    if (!attempt.held_end || attempt.state == State::kDone) continue;
    const Attempt::End& end = *attempt.held_end;
    if (attempt.pod_told(end) || (now - end.seen >= options_.pod_grace)) {
      report_end(attempt, end.succeeded, end.reason);
    }
  }
}

void KubernetesCluster::observe_pod(const json& pod) {
  auto found = by_name_.find(label(pod, kJobLabel));
  if (found == by_name_.end()) return;
  Attempt& attempt = attempts_.at(found->second);
  if (attempt.state == State::kDone) return;
  const PodView view = view_pod(pod);
  attempt.pod = view.name;
  const json& status = object_field(pod, "status");
  const std::string& phase = view.phase;
  attempt.pod_problem = view.scheduling_problem;
  if (!view.node.empty()) attempt.node = view.node;
  if (view.unschedulable_since && !attempt.unschedulable_at) {
    attempt.unschedulable_at = view.unschedulable_since;
    attempt.unschedulable_seen = clock_.now();
  }
  if (view.scheduled_at) {
    attempt.scheduled_at = view.scheduled_at;
    if (!attempt.bound_seen) attempt.bound_seen = clock_.now();
  }
  if (view.running_since) attempt.running_since = view.running_since;
  for (const auto& container : array_field(status, "containerStatuses")) {
    const json& terminated = field(object_field(container, "state"), "terminated");
    if (!terminated.is_object()) continue;
    // An exit code beyond int (a malformed answer) reads as a failure without a usable code.
    std::optional<std::int64_t> code = integer_field(terminated, "exitCode");
    attempt.exit_code = code && *code >= INT32_MIN && *code <= INT32_MAX ? static_cast<int>(*code) : 1;
  }
  if (phase == "Running" || phase == "Succeeded" || phase == "Failed") report_started(attempt);
  if (attempt.held_end && attempt.pod_told(*attempt.held_end)) {
    report_end(attempt, attempt.held_end->succeeded, attempt.held_end->reason);
  }
}

void KubernetesCluster::job_gone(const std::string& name, const std::string& reason) {
  auto found = by_name_.find(name);
  if (found == by_name_.end()) return;
  Attempt& attempt = attempts_.at(found->second);
  if (attempt.state != State::kCreated) return;
  report_end(attempt, false, reason);
}

// A time the server told of the pod (its binding, when it was said to fit nowhere) on this
// process's clock (the server's clock need not agree with it, so a server time is never used as
// one of ours): the server's own span from it to the container's start, taken back from when the
// start was seen here; when the container's start is not told yet (the Job said its pod is ready
// before the pod's own update came), when it was first seen here (`seen`), at the latest the
// start; else unknown.
std::optional<data::Micros> KubernetesCluster::time_here(const Attempt& attempt, std::optional<std::int64_t> server_s,
                                                         std::optional<data::Micros> seen, data::Micros started) {
  if (!server_s) return std::nullopt;
  if (attempt.running_since && *attempt.running_since >= *server_s) {
    return started - (*attempt.running_since - *server_s) * data::kMicrosPerSecond;
  }
  if (!seen) return std::nullopt;
  return std::min(*seen, started);
}

void KubernetesCluster::report_started(Attempt& attempt) {
  if (attempt.started) return;
  attempt.started = true;
  attempt.waiting_since = 0;
  if (listener_) {
    scheduler::AttemptEvent event =
        event_at(attempt.submission.handle, clock_.now(), attempt.pod.empty() ? attempt.name : attempt.pod, 0, "");
    event.placed = time_here(attempt, attempt.scheduled_at, attempt.bound_seen, event.at);
    event.node = attempt.node;
    event.unschedulable = time_here(attempt, attempt.unschedulable_at, attempt.unschedulable_seen, event.at);
    listener_->on_started(event);
  }
}

void KubernetesCluster::report_end(Attempt& attempt, bool succeeded, const std::string& reason) {
  if (attempt.state == State::kDone) return;
  if (attempt.state == State::kCreated) report_started(attempt);
  attempt.state = State::kDone;
  ended_.push_back(attempt.submission.handle);
  if (!listener_) return;
  const scheduler::AttemptEvent event =
      event_at(attempt.submission.handle, clock_.now(), attempt.pod.empty() ? attempt.name : attempt.pod,
               succeeded ? 0 : attempt.exit_code.value_or(1), succeeded ? std::string_view() : reason);
  if (succeeded) {
    listener_->on_succeeded(event);
  } else {
    listener_->on_failed(event);
  }
}

void KubernetesCluster::trim_history() {
  std::vector<FinishedJob> candidates;
  for (const auto& [name, finished] : finished_) {
    if (finished.deleting) continue;
    auto found = by_name_.find(name);
    if (found != by_name_.end() && attempts_.at(found->second).state != State::kDone) continue;
    candidates.push_back({name, finished.succeeded, finished.at, finished.seen});
  }
  auto doomed = jobs_beyond_history(std::move(candidates), options_.keep_succeeded, options_.keep_failed);
  for (const auto& name : doomed) {
    finished_[name].deleting = true;
    delete_job(name);
  }
}

void KubernetesCluster::publish_status() {
  KubernetesClusterStatus status;
  data::Micros now = clock_.now();
  status.in_flight = in_flight();
  status.waiting = static_cast<int>(waiting_.size());
  status.requests_pending = requests_.pending();
  for (const auto& [handle, attempt] : attempts_) {
    if ((attempt.state == State::kCreating || attempt.state == State::kCreated) && !attempt.started &&
        now - attempt.waiting_since > options_.unschedulable_after) {
      status.unschedulable.push_back({attempt.name, attempt.submission.item_id(), attempt.submission.attempt,
                                      attempt.pod, attempt.waiting_since, attempt.pod_problem});
    }
  }
  std::sort(status.unschedulable.begin(), status.unschedulable.end(),
            [](const auto& a, const auto& b) { return a.job < b.job; });
  status.tracked_attempts = static_cast<int>(attempts_.size());
  status.tracked_finished_jobs = static_cast<int>(finished_.size());
  status.lists = jobs_ ? jobs_->lists() : 0;
  status.watches = jobs_ ? jobs_->watches() : 0;
  status.api = health_.status();
  std::lock_guard lock(mutex_);
  status_ = std::move(status);
}

KubernetesClusterStatus KubernetesCluster::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::vector<ExistingJob> KubernetesCluster::existing_jobs(data::Micros patience) {
  const data::Micros since = clock_.now();
  auto impatient = [&](const KubeApiError& error, data::Micros) {
    if (patience > 0 && clock_.now() - since >= patience) throw error;
  };
  const std::string path = client_.jobs_path() + "?labelSelector=" +
                           KubeClient::query_escape(std::string(kRunLabel) + "=" + dns_label(options_.run));
  std::string version;
  std::vector<json> items = client_.list(path, version, stop_.get_token(), impatient);
  std::vector<ExistingJob> out;
  for (const json& job : items) {
    JobView view = view_job(job);
    ExistingJob existing;
    existing.name = view.name;
    existing.item_id = text_field(object_field(object_field(job, "metadata"), "annotations"), kItemAnnotation);
    existing.attempt = attempt_number(label(job, kAttemptLabel));
    existing.finished = view.terminal();
    existing.succeeded = view.phase == JobPhase::kSucceeded;
    out.push_back(existing);
  }
  return out;
}

}  // namespace millrace::cluster_adapter
