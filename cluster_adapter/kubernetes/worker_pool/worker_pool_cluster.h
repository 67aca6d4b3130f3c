// WorkerPoolCluster: the scheduler's Cluster as a fixed pool of long-lived worker pods, the
// worker-pool mode of a Kubernetes run. One Indexed Job (JobTemplate::render_pool: N
// completions, one pod per index) is created when the cluster is made; its pods pull the
// scheduler's submissions over HTTP as leases (lease_book.h, lease_server.h), so a range costs
// a lease request instead of a pod start-up. What the workers say (a lease granted, completed,
// expired, abandoned) reaches the listener only inside poll(), as started / succeeded / failed.
//
// It plugs into the scheduler through the same seam as every cluster: Submission::worker names
// the fixed-pool lane, which the pool only uses to know how many workers are still wanted;
// retire_worker() lets one idle pod go (it is told to exit). The attempt's worker in the events
// is the pod that leased it. The Job is followed by two Reflectors (the run's Jobs and the
// pool's pods) for the status: pods pending too long are shown as unschedulable, and a pool Job
// refused, failed or deleted while the run needs it is trouble() that stops the run (its state
// kept). At a resume, a pool Job still running in the cluster is adopted (409 AlreadyExists on
// create); a finished one is deleted and made again.
//
// A worker whose lease expired is taken for lost unless it is heard from again (a late heartbeat,
// a new lease request). Not heard from for two heartbeat periods after its lease was found
// expired, its pod (the pool pod of that name, or of hostname JOB-INDEX, that the pods watch shows
// running or pending in the pool's own Job) is deleted, so that its Job makes a new one: work
// that comes back (the retry) finds a worker, however many workers were let go and however many
// faults befall the same work. A worker naming no such pod is never acted on, nor one whose pod
// ended by itself. If work then waits with no worker left to take it (lost workers not replaced:
// a delete refused, a name matching no pod), that is trouble(), naming them, not a silent stall.
//
// The lease API requires a token of its callers: one per session (random unless given), handed
// to the pods as MILLRACE_LEASE_TOKEN in the pool Job; an adopted Job's token is accepted too,
// since its pods carry the token of the session that made it.
#pragma once

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
#include "cluster_adapter/kubernetes/worker_pool/lease_book.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_server.h"
#include "cluster_adapter/realtime/api_health.h"
#include "cluster_adapter/realtime/polled_cluster.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

struct WorkerPoolOptions {
  std::string run;                          // run name: the Job's name and the run label
  int workers = 8;                          // pods of the pool (the Job's completions)
  std::string lease_host = "127.0.0.1";     // where the lease server listens
  int lease_port = 0;                       // 0: any free port
  std::string lease_url;                    // how pods reach it; empty: http://HOSTNAME:PORT
  std::string lease_token;                  // required of the workers; empty: a random one
  LeaseTerms lease;
  std::shared_ptr<SweepExchange> sweep;     // a sweep's run: its bundles and results (else null)
  data::Micros unschedulable_after = 5 * 60 * data::kMicrosPerSecond;
  BackoffPolicy backoff;                    // for the watches (never gives up)
  int watch_timeout_seconds = 300;
};

// A pool pod waiting for a node longer than unschedulable_after.
struct PendingPod {
  std::string pod;
  int index = -1;
  data::Micros pending_since = 0;  // when the run first saw it pending
  std::string reason;              // the scheduler's message (PodScheduled=False), if any
};

// A worker of the pool taken for lost (its lease expired) and what became of it.
struct LostWorker {
  std::string worker;            // as it named itself (its pod's name)
  data::Micros lost_at = 0;      // when its lease expired
  data::Micros noticed = 0;      // when the run learnt of it
  std::string why;               // "its lease expired"
  // lost: not heard from since (waiting a little for a late heartbeat, or for the pods watch to
  // show its pod); came back: heard from again; ended: its pod ended by itself; deleting, deleted:
  // its pod, so that its Job makes a new one; refused: the delete, with the API server's answer.
  std::string state = "lost";
  std::string pod = "";          // the pool pod it was found to be
  std::string error = "";
};

struct WorkerPoolStatus {
  ApiHealthStatus api;
  std::string job;                 // the Indexed Job's name
  std::string job_state;           // creating, running, complete, "failed: WHY", deleted
  // The Job's completionMode as the API server kept it: Indexed, or NonIndexed where the server
  // has no Indexed Jobs (Kubernetes before 1.21 drops the field: a Job of `workers` completions,
  // its pods without a completion index, which serves interchangeable workers alike). Empty
  // until the Job is made or adopted.
  std::string completion_mode;
  std::string lease_url;
  int workers = 0;
  std::map<std::string, int> pods;  // by phase: Pending, Running, Succeeded, Failed
  std::vector<PendingPod> unschedulable;
  std::vector<LostWorker> lost;  // in the order their leases were found expired
  LeaseBookStatus leases;
  int requests_pending = 0;
  std::string trouble;             // why the pool cannot serve the run (empty: it can)
};

class WorkerPoolCluster : public PolledCluster {
 public:
  // Starts the lease server (throws data::Error naming the address when it cannot bind) and
  // queues the creation of the pool's Job. Throws data::Error naming the template when it
  // cannot make a pool Job (see JobTemplate::render_pool).
  WorkerPoolCluster(KubeClient client, const JobTemplate& job_template, WorkerPoolOptions options,
                    const scheduler::Clock& clock);
  // Workers asking for work from now on are told to wait (a resumed session serves them).
  ~WorkerPoolCluster() override;
  WorkerPoolCluster(const WorkerPoolCluster&) = delete;
  WorkerPoolCluster& operator=(const WorkerPoolCluster&) = delete;

  void set_listener(scheduler::ClusterListener* listener) override { listener_ = listener; }
  void submit(const scheduler::Submission& submission) override { book_.offer(submission); }
  void cancel(scheduler::AttemptHandle handle) override { book_.withdraw(handle); }
  int capacity() const override { return options_.workers; }
  void retire_worker(const std::string& worker) override { book_.retire(worker); }
  void poll(data::Micros max_wait) override;

  int lease_port() const { return server_->port(); }
  const std::string& lease_url() const { return lease_url_; }
  WorkerPoolStatus status() const;

  // The session ends: when `run_over`, workers are told to exit, else to wait; the pool's Job
  // is deleted (propagationPolicy Background). Waits up to `max_wait` for the delete to be
  // sent; true when it was.
  bool shut_down(bool run_over, data::Micros max_wait);

 private:
  void create_job(const nlohmann::json& body, std::stop_token stop);
  void adopt(const nlohmann::json& job);  // the pool's Job, made or found running
  void observe_jobs(const std::vector<nlohmann::json>& jobs, bool whole_list);
  void observe_pod(const std::string& type, const nlohmann::json& pod);
  void observe_pod_locked(const std::string& type, const nlohmann::json& pod);
  // Lost workers not heard from again have their pods deleted; notes when work starves for want
  // of workers while some lost ones are not replaced.
  void replace_lost(data::Micros now);
  void delete_pod(std::size_t lost, std::string uid, std::stop_token stop);  // lost_[lost].pod

  KubeClient client_;
  WorkerPoolOptions options_;
  const scheduler::Clock& clock_;
  scheduler::ClusterListener* listener_ = nullptr;
  std::string job_name_;
  std::string lease_url_;
  LeaseBook book_;
  ApiHealth health_;

  mutable std::mutex mutex_;  // what the threads learn about the Job and its pods
  std::string job_uid_;                                // of the pool's Job, once made or adopted
  bool job_listed_ = false;                            // the watches have shown that Job
  std::string job_state_ = "creating";
  std::string completion_mode_;
  std::string trouble_;
  bool shutting_down_ = false;
  std::map<std::string, PendingPod> pods_pending_;     // by pod name
  struct PoolPod {
    std::string phase;
    std::string uid;
    std::string job_uid;  // of the Job controlling it
    int index = -1;       // its completion index, -1 when it has none
  };
  std::map<std::string, PoolPod> pool_pods_;           // by pod name
  std::vector<LostWorker> lost_;
  std::optional<data::Micros> starved_since_;          // work waiting, no worker left to take it

  std::unique_ptr<LeaseServer> server_;
  ApiRequestQueue requests_;  // after what its requests use: destroyed (joined) before it
  std::unique_ptr<Reflector> jobs_;
  std::unique_ptr<Reflector> pods_;
};

}  // namespace millrace::cluster_adapter
