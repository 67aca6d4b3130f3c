#include "cluster_adapter/kubernetes/worker_pool/worker_pool_cluster.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <random>

#include "cluster_adapter/kubernetes/job_deletion.h"
#include "cluster_adapter/kubernetes/job_view.h"
#include "cluster_adapter/kubernetes/json_fields.h"
#include "data/readable_duration.h"

namespace millrace::cluster_adapter {

using nlohmann::json;

namespace {

// Lease ids of this session start with it: the session's start time in hex.
std::string session_of(const scheduler::Clock& clock) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(clock.now()));
  return text;
}

// 128 random bits in hex: the lease API's token for a session.
std::string random_token() {
  std::random_device random;
  std::string token;
  char hex[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(random()));
    token += hex;
  }
  return token;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "localhost";
}

std::string uid_of(const json& object) { return text_field(object_field(object, "metadata"), "uid"); }

}  // namespace

WorkerPoolCluster::WorkerPoolCluster(KubeClient client, const JobTemplate& job_template, WorkerPoolOptions options,
                                     const scheduler::Clock& clock)
    : client_(std::move(client)),
      options_(std::move(options)),
      clock_(clock),
      job_name_(pool_job_name(options_.run)),
      book_(clock, options_.lease, session_of(clock)),
      health_(clock) {
  options_.backoff.max_attempts = 0;
  if (options_.lease_token.empty()) options_.lease_token = random_token();
  server_ = std::make_unique<LeaseServer>(book_, options_.run, options_.workers, options_.lease_host,
                                          options_.lease_port, options_.lease_token, options_.sweep);
  lease_url_ = options_.lease_url;
  if (lease_url_.empty()) {
    bool anywhere = options_.lease_host.empty() || options_.lease_host == "0.0.0.0";
    lease_url_ = "http://" + (anywhere ? host_name() : options_.lease_host) + ":" + std::to_string(server_->port());
  }
  json body = job_template.render_pool(options_.run, client_.config().namespace_name, options_.workers, lease_url_,
                                       options_.lease_token);
  requests_.push([this, body](std::stop_token stop) { create_job(body, stop); });

  std::string run_selector = std::string(kRunLabel) + "=" + dns_label(options_.run);
  auto trouble = [this](const std::string& source) {
    return [this, source](const std::string& problem) { health_.report(source, problem); };
  };
  jobs_ = std::make_unique<Reflector>(
      client_, client_.jobs_path(), run_selector,
      ReflectorHandlers{[this](std::vector<json> items) { observe_jobs(items, true); },
                        [this](const std::string& type, const json& job) {
                          if (type != "DELETED") return observe_jobs({job}, false);
                          std::lock_guard lock(mutex_);
                          if (!job_uid_.empty() && uid_of(job) == job_uid_) job_state_ = "deleted";
                        },
                        trouble("watch jobs")},
      options_.backoff, options_.watch_timeout_seconds);
  pods_ = std::make_unique<Reflector>(
      client_, client_.pods_path(),
      run_selector + "," + kPoolLabel + "=true",
      ReflectorHandlers{[this](std::vector<json> items) {  // the pods all at once: none seen missing
                          std::lock_guard lock(mutex_);
                          pool_pods_.clear();
                          for (const json& pod : items) observe_pod_locked("ADDED", pod);
                        },
                        [this](const std::string& type, const json& pod) { observe_pod(type, pod); },
                        trouble("watch pods")},
      options_.backoff, options_.watch_timeout_seconds);
}

WorkerPoolCluster::~WorkerPoolCluster() {
  book_.stop_waiting();
  jobs_.reset();
  pods_.reset();
}

// ---- the pool's Job (request thread) -----------------------------------------------------------

void WorkerPoolCluster::create_job(const json& body, std::stop_token stop) {
  auto on_retry = [this](const KubeApiError& error, data::Micros) { health_.failed("requests", error.what()); };
  const std::string path = client_.jobs_path() + "/" + job_name_;
  try {
    for (Backoff backoff(options_.backoff);;) {
      try {
        adopt(client_.call("POST", client_.jobs_path(), body, stop, on_retry));
        return;
      } catch (const KubeApiError& error) {
        if (error.status() != 409 || error.reason() != "AlreadyExists") throw;
      }
      // An earlier session's pool: adopted while it runs; a finished one is deleted and made again.
      // Found by a list (the Role of deploy/rbac.yaml grants list, not get); gone meanwhile: made.
      json found = client_.call("GET", client_.jobs_path() + "?fieldSelector=metadata.name%3D" + job_name_,
                                std::nullopt, stop, on_retry);
      for (const json& job : array_field(found, "items")) {
        JobView existing = view_job(job);
        if (!existing.terminal() && !existing.deleting) {
          adopt(job);
          return;
        }
        if (existing.deleting) continue;
        try {
          client_.call("DELETE", path + "?propagationPolicy=Background", std::nullopt, stop, on_retry);
        } catch (const KubeApiError& error) {
          if (error.status() != 404) throw;  // gone meanwhile: create it
        }
      }
      if (!sleep_unless_stopped(backoff.next_delay(), stop)) return;
    }
  } catch (const KubeApiError& error) {
    if (error.reason() == "Stopped") throw;
    health_.rejected("requests", error.what());
    std::lock_guard lock(mutex_);
    trouble_ = "the worker pool Job " + job_name_ + " cannot be made: " + error.what();
  }
}

void WorkerPoolCluster::adopt(const json& job) {
  health_.answered("requests");
  server_->accept_token(pool_lease_token(job));
  std::lock_guard lock(mutex_);
  job_uid_ = uid_of(job);
  std::string mode = text_field(object_field(job, "spec"), "completionMode");
  completion_mode_ = mode.empty() ? "NonIndexed" : mode;
  job_listed_ = false;
  job_state_ = "running";
}

bool WorkerPoolCluster::shut_down(bool run_over, data::Micros max_wait) {
  {
    std::lock_guard lock(mutex_);
    shutting_down_ = true;
  }
  if (run_over) {
    book_.close();
  } else {
    book_.stop_waiting();
  }
  requests_.push([this](std::stop_token stop) {
    delete_job_in_background(client_, job_name_, health_, stop);
  });
  return requests_.flush(max_wait);
}

// Poll thread. The deletes go to the request thread. (The lease book's mutex is taken inside this
// one's, never the other way round.)
void WorkerPoolCluster::replace_lost(data::Micros now) {
  const LeaseBookStatus leases = book_.status();
  std::lock_guard lock(mutex_);
  bool unreplaced = false;
  for (std::size_t i = 0; i < lost_.size(); ++i) {
    LostWorker& lost = lost_[i];
    unreplaced |= lost.state == "refused";
    if (lost.state != "lost") continue;
    std::optional<data::Micros> heard = book_.last_heard(lost.worker);
    if (heard && *heard > lost.lost_at) {
      lost.state = "came back";
      continue;
    }
    unreplaced = true;
    // A worker whose heartbeats are only late (a loaded machine, the run paused) is heard from
    // within a heartbeat period or two.
    if (shutting_down_ || now - lost.noticed < 2 * options_.lease.heartbeat) continue;
    auto pod = pool_pods_.find(lost.worker);
    if (pod == pool_pods_.end()) {  // a worker without POD_NAME names its hostname, JOB-INDEX
      pod = std::find_if(pool_pods_.begin(), pool_pods_.end(), [&](const auto& entry) {
        return entry.second.index >= 0 && job_name_ + "-" + std::to_string(entry.second.index) == lost.worker;
      });
    }
    if (pod == pool_pods_.end() || job_uid_.empty() || pod->second.job_uid != job_uid_) continue;
    if (pod->second.phase != "Running" && pod->second.phase != "Pending") {
      lost.state = "ended";
      continue;
    }
    lost.state = "deleting";
    lost.pod = pod->first;
    requests_.push([this, i, uid = pod->second.uid](std::stop_token stop) { delete_pod(i, uid, stop); });
  }
  // Starved: work offered, no worker asking or holding a lease, none on its way (pending), and
  // some lost worker not replaced.
  const bool starved = unreplaced && leases.offered > 0 && leases.workers_waiting == 0 && leases.leases.empty() &&
                       std::none_of(pool_pods_.begin(), pool_pods_.end(),
                                    [](const auto& entry) { return entry.second.phase == "Pending"; });
  if (!starved) {
    starved_since_.reset();
  } else if (!starved_since_) {
    starved_since_ = now;
  }
}

// The pod of that uid only (not one made since under the same name), with a second's grace: the
// worker holds nothing worth waiting for, and the Job makes a new pod as soon as this one is
// terminating.
void WorkerPoolCluster::delete_pod(std::size_t lost, std::string uid, std::stop_token stop) {
  std::string pod;
  {
    std::lock_guard lock(mutex_);
    pod = lost_[lost].pod;
  }
  const json options = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 1},
                        {"preconditions", {{"uid", uid}}}};
  auto on_retry = [this](const KubeApiError& error, data::Micros) { health_.failed("requests", error.what()); };
  std::string error;
  try {
    client_.call("DELETE", client_.pods_path() + "/" + pod, options, stop, on_retry);
    health_.answered("requests");
  } catch (const KubeApiError& failure) {
    if (failure.reason() == "Stopped") throw;
    if (failure.status() != 404 && failure.status() != 409) {  // gone meanwhile (or made anew): nothing to delete
      health_.rejected("requests", failure.what());
      error = failure.what();
    }
  }
  std::lock_guard lock(mutex_);
  lost_[lost].state = error.empty() ? "deleted" : "refused";
  lost_[lost].error = error;
}

// ---- what the watches say (reflector threads) ----------------------------------------------------

// Only the pool's own Job counts (by uid): not an earlier session's, being deleted to be made again.
void WorkerPoolCluster::observe_jobs(const std::vector<json>& jobs, bool whole_list) {
  std::lock_guard lock(mutex_);
  if (job_uid_.empty()) return;
  for (const json& job : jobs) {
    if (uid_of(job) != job_uid_) continue;
    JobView view = view_job(job);
    std::string why = view.failure_reason == "exit"      ? "its workers failed more often than its backoffLimit allows"
                      : view.failure_reason == "timeout" ? "its activeDeadlineSeconds passed"
                                                         : view.failure_reason;
    job_state_ = view.phase == JobPhase::kSucceeded ? "complete"
                 : view.phase == JobPhase::kFailed  ? "failed: " + why
                                                    : "running";
    job_listed_ = true;
    return;
  }
  // A list served before the create took effect does not hold the Job yet: only one that lost
  // a Job it had shown says it was deleted.
  if (whole_list && job_listed_) job_state_ = "deleted";
}

void WorkerPoolCluster::observe_pod(const std::string& type, const json& pod) {
  std::lock_guard lock(mutex_);
  observe_pod_locked(type, pod);
}

void WorkerPoolCluster::observe_pod_locked(const std::string& type, const json& pod) {
  const PodView view = view_pod(pod);
  const std::string& name = view.name;
  const std::string& phase = view.phase;
  if (type == "DELETED" || phase != "Pending") pods_pending_.erase(name);
  if (type == "DELETED") {
    pool_pods_.erase(name);
    return;
  }
  const json& metadata = object_field(pod, "metadata");
  std::string index_text =
      text_field(object_field(metadata, "annotations"), "batch.kubernetes.io/job-completion-index");
  int index = -1;
  std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
  std::string job_uid;
  for (const json& owner : array_field(metadata, "ownerReferences")) {
    if (owner.is_object() && owner.value("controller", false) == true) job_uid = text_field(owner, "uid");
  }
  pool_pods_[name] = {phase, text_field(metadata, "uid"), job_uid, index};
  if (phase != "Pending") return;
  auto [it, first] = pods_pending_.try_emplace(name, PendingPod{name, index, clock_.now(), ""});
  it->second.reason = view.scheduling_problem;
}

// ---- the Cluster seam (poll thread) ----------------------------------------------------------------

void WorkerPoolCluster::poll(data::Micros max_wait) {
  for (const LeaseEvent& e : book_.wait_events(max_wait)) {
    if (e.kind == LeaseEvent::Kind::kFailed && e.event.reason == kLeaseExpired) {
      std::lock_guard lock(mutex_);
      auto known = std::find_if(lost_.begin(), lost_.end(), [&](const LostWorker& w) {
        return w.worker == e.event.worker && (w.state == "lost" || w.state == "deleting");
      });
      if (known == lost_.end()) lost_.push_back({e.event.worker, e.event.at, clock_.now(), "its lease expired"});
    }
    if (!listener_) continue;
    switch (e.kind) {
      case LeaseEvent::Kind::kStarted: listener_->on_started(e.event.view()); break;
      case LeaseEvent::Kind::kSucceeded: listener_->on_succeeded(e.event.view()); break;
      case LeaseEvent::Kind::kFailed: listener_->on_failed(e.event.view()); break;
    }
  }
  replace_lost(clock_.now());
}

WorkerPoolStatus WorkerPoolCluster::status() const {
  WorkerPoolStatus status;
  status.api = health_.status();
  status.job = job_name_;
  status.lease_url = lease_url_;
  status.workers = options_.workers;
  status.leases = book_.status();
  status.requests_pending = requests_.pending();
  data::Micros now = clock_.now();
  std::lock_guard lock(mutex_);
  status.job_state = job_state_;
  status.completion_mode = completion_mode_;
  for (const auto& [name, pod] : pool_pods_) ++status.pods[pod.phase];
  status.lost = lost_;
  for (const auto& [name, pending] : pods_pending_) {
    if (now - pending.pending_since > options_.unschedulable_after) status.unschedulable.push_back(pending);
  }
  // A pool that cannot run work is trouble only while work waits for it, not at the run's end.
  bool work_waits = status.leases.offered > 0 || !status.leases.leases.empty();
  if (!trouble_.empty()) {
    status.trouble = trouble_;
  } else if (!shutting_down_ && work_waits && job_state_ != "creating" && job_state_ != "running") {
    status.trouble = "the worker pool Job " + job_name_ + " can serve no more work (" + job_state_ +
                     "); resume the run to make it again";
  } else if (!shutting_down_ && starved_since_ &&
             now - *starved_since_ > options_.lease.duration + options_.lease.wait) {
    std::string unreplaced;
    for (const LostWorker& w : lost_) {
      if (w.state == "lost") unreplaced += (unreplaced.empty() ? "" : ", ") + w.worker + " (no such pod of the pool)";
      if (w.state == "refused") unreplaced += (unreplaced.empty() ? "" : ", ") + w.pod + " (" + w.error + ")";
    }
    status.trouble = "work has waited " + data::readable_duration(now - *starved_since_) +
                     " with no worker of the pool left to take it, and lost workers could not be replaced: " +
                     unreplaced + "; delete their pods (or the Job " + job_name_ + ") and resume the run";
  }
  return status;
}

}  // namespace millrace::cluster_adapter
