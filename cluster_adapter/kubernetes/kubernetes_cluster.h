// KubernetesCluster: the scheduler's Cluster on a real Kubernetes cluster, job-per-item mode.
// Each Submission becomes one batch/v1 Job rendered from the run's JobTemplate (deterministic
// name, run/item/attempt labels, backoffLimit 0, restartPolicy Never, the attempt's deadline).
// Two Reflectors follow the run's Jobs and pods (list + watch by label selector) and a request
// thread creates and deletes Jobs, retrying with backoff; all of them only queue what they
// learn, and poll() turns it into listener events on the caller's thread, exactly once per
// attempt: started (a pod runs), then succeeded or failed (the Job's conditions).
//
// The concurrency cap is kept from the adapter's own records: an attempt counts as in flight
// from submit() until its end is reported, whether its Job is being created, waits for a
// node or runs, so the cluster never holds more unfinished Jobs of the run than the cap (a
// submission beyond it waits here until a slot frees). Finished Jobs beyond the history limits
// are deleted oldest first, always with propagationPolicy Background. An unreachable API never
// throws out of poll(): it is retried with backoff and shown in status(), and the run resumes
// when the API answers again. After a crash, adopt() re-attaches the scheduler's in-flight
// attempts to the Jobs already in the cluster. An attempt is forgotten once its end is
// reported, so every event costs in proportion to the attempts in flight, not to the run so far.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/api_request_queue.h"
#include "cluster_adapter/kubernetes/job_template.h"
#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/kubernetes/reflector.h"
#include "cluster_adapter/realtime/api_health.h"
#include "cluster_adapter/realtime/backoff.h"
#include "cluster_adapter/realtime/polled_cluster.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

struct KubernetesClusterOptions {
  std::string run;                               // run name: Job names and the run label
  int max_concurrency = 8;                       // unfinished Jobs of the run at once
  std::optional<int> active_deadline_seconds;    // per attempt
  int keep_succeeded = 10;                       // finished Jobs kept in the cluster
  int keep_failed = 10;
  data::Micros unschedulable_after = 5 * 60 * data::kMicrosPerSecond;
  BackoffPolicy backoff;                         // for every API call (never gives up)
  int watch_timeout_seconds = 300;
  data::Micros pod_grace = 2 * data::kMicrosPerSecond;  // wait for the pod's name / exit code
};

// An attempt whose Job was sent for creation longer ago than unschedulable_after and whose pod
// does not run yet: it holds a slot of the cap while it waits for a node.
struct UnschedulableAttempt {
  std::string job;
  std::string item;
  int attempt = 0;
  std::string pod;                         // empty until the pod exists
  data::Micros waiting_since = 0;          // sent for creation (or adopted)
  std::string reason;                      // the scheduler's message (PodScheduled=False), if any
};

struct KubernetesClusterStatus {
  ApiHealthStatus api;                     // reachability, failures in a row, retries, last error
  int in_flight = 0;                       // submitted and not yet reported finished
  int waiting = 0;                         // of which held back by the concurrency cap
  int requests_pending = 0;                // Job creates and deletes queued or being sent (retried)
  std::vector<UnschedulableAttempt> unschedulable;  // by job name
  int lists = 0;                           // list calls of the Job reflector (1 + re-lists)
  int watches = 0;                         // watch streams opened by the Job reflector
  // The working sets, bounded however long the run: attempts followed (not yet reported
  // finished: at most the cap plus those waiting for it) and finished Jobs still in the
  // cluster (about the history limits, plus deletes on their way).
  int tracked_attempts = 0;
  int tracked_finished_jobs = 0;
};

// A Job of the run found in the cluster, for re-attaching after a crash.
struct ExistingJob {
  std::string name;
  std::string item_id;
  int attempt = 0;
  bool finished = false;
  bool succeeded = false;
};

class KubernetesCluster : public PolledCluster {
 public:
  KubernetesCluster(KubeClient client, JobTemplate job_template, KubernetesClusterOptions options,
                    const scheduler::Clock& clock);
  ~KubernetesCluster() override;
  KubernetesCluster(const KubernetesCluster&) = delete;
  KubernetesCluster& operator=(const KubernetesCluster&) = delete;

  void set_listener(scheduler::ClusterListener* listener) override { listener_ = listener; }
  void submit(const scheduler::Submission& submission) override;
  void cancel(scheduler::AttemptHandle handle) override;
  // The run's concurrency cap (slots), like the other clusters; how many of them are taken is
  // status().in_flight, counted from the adapter's own records.
  int capacity() const override { return options_.max_concurrency; }
  void poll(data::Micros max_wait) override;

  // The run's Jobs now in the cluster (one list call, retried with backoff; throws
  // KubeApiError on a non-retryable failure such as 403, or once the API has failed for longer
  // than `patience` (0: retries for ever)).
  std::vector<ExistingJob> existing_jobs(data::Micros patience = 0);
  // Follows an attempt whose Job already exists (created before a crash) without creating it;
  // if the cluster turns out not to have it, the attempt is reported failed ("lost").
  void adopt(const scheduler::Submission& submission);
  // Deletes a Job of the run that is no attempt of this session (propagationPolicy Background,
  // retried with backoff like every request; one already gone is fine).
  void delete_job(const std::string& name);

  KubernetesClusterStatus status() const;

  // Waits until every request queued so far (Job creates, deletes of cancelled Jobs) has been
  // sent, or `max_wait` passed; true when all were. A run calls it before it ends, so a Ctrl-C's
  // deletes reach the cluster.
  bool flush(data::Micros max_wait) { return requests_.flush(max_wait); }

 private:
  enum class State { kWaiting, kCreating, kCreated, kDone };
  struct Attempt {
    scheduler::Submission submission;
    std::string name;
    State state = State::kWaiting;
    bool seen = false;      // its Job has been observed in the cluster
    bool adopted = false;   // re-attached by adopt(): its Job should already exist
    bool started = false;   // on_started was reported
    data::Micros waiting_since = 0;  // sent for creation (or adopted), not yet running
    std::string pod;
    std::string pod_problem;  // why the pod is not scheduled (PodScheduled=False), if told
    std::string node;         // where its pod was bound, once told
    std::optional<std::int64_t> unschedulable_at;  // first told its pod fits on no node (server clock, s)
    std::optional<std::int64_t> scheduled_at;   // the pod's PodScheduled time (server clock, s)
    std::optional<std::int64_t> running_since;  // its container's start (server clock, s)
    std::optional<data::Micros> bound_seen;     // when the pod was first seen bound (this clock)
    std::optional<data::Micros> unschedulable_seen;  // when it was first seen told so (this clock)
    std::optional<int> exit_code;
    // A Job seen finished before its pod (another stream) told its name or, for a failure by
    // the pod's exit, its exit code: the report waits up to pod_grace for them.
    struct End {
      bool succeeded = true;
      std::string reason;
      data::Micros seen = 0;
    };
    std::optional<End> held_end;
    bool pod_told(const End& end) const { return end.succeeded ? !pod.empty() : exit_code.has_value(); }
  };
  struct Finished {
    bool succeeded = true;
    std::int64_t at = 0;
    std::uint64_t seen = 0;
    bool deleting = false;
  };
  // What the reflectors and the request thread hand to poll().
  struct Note {
    enum class Kind { kJobList, kJobEvent, kPodList, kPodEvent, kCreated, kCreateFailed } kind;
    std::string type;                   // watch event type
    nlohmann::json object;
    std::vector<nlohmann::json> items;
    scheduler::AttemptHandle handle = 0;
    std::string problem;
  };
  void push(Note note);
  void send_create(scheduler::AttemptHandle handle, const nlohmann::json& body, std::stop_token stop);

  void handle_note(Note& note);
  void observe_job(const nlohmann::json& job);
  void observe_pod(const nlohmann::json& pod);
  void job_gone(const std::string& name, const std::string& reason);
  static std::optional<data::Micros> time_here(const Attempt& attempt, std::optional<std::int64_t> server_s,
                                               std::optional<data::Micros> seen, data::Micros started);
  void report_started(Attempt& attempt);
  void report_end(Attempt& attempt, bool succeeded, const std::string& reason);
  void report_held_ends();  // those whose pod told, or waited past pod_grace
  void forget_ended();      // drops the attempts reported finished (after the loops over them)
  void dispatch_waiting();
  void trim_history();
  void publish_status();
  int in_flight() const;

  KubeClient client_;
  JobTemplate template_;
  KubernetesClusterOptions options_;
  const scheduler::Clock& clock_;
  scheduler::ClusterListener* listener_ = nullptr;

  // Touched only on the poll thread.
  std::map<scheduler::AttemptHandle, Attempt> attempts_;
  std::map<std::string, scheduler::AttemptHandle> by_name_;
  std::deque<scheduler::AttemptHandle> waiting_;
  std::map<std::string, Finished> finished_;
  std::uint64_t finish_order_ = 0;
  std::deque<std::pair<scheduler::AttemptHandle, std::string>> cancelled_;
  std::vector<scheduler::AttemptHandle> ended_;  // reported finished, to forget

  // Shared with the threads.
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Note> inbox_;
  KubernetesClusterStatus status_;
  ApiHealth health_;
  std::stop_source stop_;

  ApiRequestQueue requests_;  // after what its requests use: destroyed (joined) before it
  std::unique_ptr<Reflector> jobs_;
  std::unique_ptr<Reflector> pods_;
};

}  // namespace millrace::cluster_adapter
