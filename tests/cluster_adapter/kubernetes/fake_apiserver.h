// A loopback Kubernetes API server for the adapter's tests, in the spirit of KWOK: discovery
// endpoints, batch/v1 Jobs and v1 Pods (create/get/list/delete/watch with labelSelector,
// v1 Nodes to get/list/watch, added and made ready by the test,
// fieldSelector metadata.name and resourceVersion), Status objects with the real codes, and
// simulated kubelets plus a Job controller that move each Job's pod Pending -> Running ->
// Succeeded/Failed after times a test chooses (or until the test ends them) and set the Job's
// status and conditions as the real controller does. Indexed Jobs (completionMode Indexed,
// which the RealApiServer suite's v1.20 lacks) get one pod per index with JOB_COMPLETION_INDEX,
// status.completedIndexes, and a failed index's pod replaced up to backoffLimit. Faults can be
// injected (error responses, dropped watches, 410 Gone inside a watch stream, a server that
// stops answering for a while, answers of the wrong shape), and it keeps a record of what it saw (most Jobs unfinished at
// once, creates, deletes without a propagation policy, orphaned pods) so tests judge the
// adapter by the server's own view. It can serve HTTPS and require a bearer token or a client
// certificate, for the kubeconfig's credential paths.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/time.h"

namespace httplib {
class Server;
class Request;
class Response;
}  // namespace httplib

namespace millrace::cluster_adapter {

// What the simulated kubelet does with a Job's pod.
inline constexpr data::Micros kUntilEnded = -1;

struct PodPlan {
  PodPlan(data::Micros pending_time = 0, data::Micros running_time = 0, int exit = 0)
      : pending(pending_time), running(running_time), exit_code(exit) {}

  data::Micros pending = 0;  // time before the pod runs
  data::Micros running = 0;  // time it runs; kUntilEnded: until FakeApiServer::end_pod()
  int exit_code = 0;         // 0: Succeeded, else Failed
  // While pending, the pod says the scheduler cannot place it (PodScheduled=False,
  // Unschedulable) with this message; empty: it only waits.
  std::string unschedulable_message;
};

// Serving HTTPS instead of plain HTTP: PEM files of the server's certificate (for 127.0.0.1)
// and key, and, when given, the CA whose client certificates authenticate a client. As on a
// real API server, a client certificate is asked for but not required by the TLS handshake:
// a request with neither a certificate the CA signed nor the required token gets 401.
struct FakeApiTls {
  std::string certificate;
  std::string key;
  std::string client_ca;
};

struct FakeApiServerOptions {
  using Plan = std::function<PodPlan(const nlohmann::json& job)>;
  FakeApiServerOptions(Plan pod_plan = {}, data::Micros step = 2 * data::kMicrosPerMilli)
      : plan(std::move(pod_plan)), tick(step) {}

  Plan plan;                                               // default: every pod succeeds at once
  data::Micros tick = 2 * data::kMicrosPerMilli;           // kubelet/controller step
  std::optional<FakeApiTls> tls;
  // When set, a request must carry "Authorization: Bearer <token>" (or, with tls.client_ca, a
  // client certificate), else it gets 401 Unauthorized.
  std::string required_token;
  // Resources ("nodes", ...) every request for is answered 403 Forbidden, as RBAC without them does.
  std::set<std::string> forbidden;
};

struct FakeApiRecord {
  int max_unfinished_jobs = 0;    // most Jobs existing without Complete/Failed at one moment
  int jobs_created = 0;           // successful creates (201)
  int create_conflicts = 0;       // creates answered 409 AlreadyExists
  int deletes_without_policy = 0; // Job deletes that sent no propagationPolicy
  int orphaned_pods = 0;          // pods left behind by orphaning deletes
  int watches_started = 0;
  int lists = 0;
  int injected_errors_served = 0;
  int malformed_answers = 0;      // answers of the wrong shape served (answer_malformed)
  std::vector<std::string> pods_deleted;  // pods a client deleted (not a Job's deletion), in order
};

class FakeApiServer {
 public:
  explicit FakeApiServer(FakeApiServerOptions options = {});
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return (options_.tls ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(port_); }

  // The next `count` resource requests (not discovery; only those with `method` when given)
  // get `status` (with Retry-After when > 0) and a Status object with the matching reason.
  void inject_errors(int count, int status, int retry_after_seconds = 0, const std::string& method = "");
  // Injected errors' messages quote the request's headers (Authorization included), as some
  // proxies' error pages do.
  void echo_headers_in_errors(bool on);
  // Ends every open watch stream abruptly (no final chunk), as a dropped connection does.
  void drop_watches();
  // Makes the next watch (and every open one) answer an ERROR event with 410 Gone inside its
  // 200 stream, and forgets the event history, so resuming from an old resourceVersion fails.
  void expire_watches();
  // Ends a running pod planned kUntilEnded with `exit_code`, as its container exiting would.
  void end_pod(const std::string& name, int exit_code);
  // While on, every resource request (list, get, create, delete, watch; not discovery) is
  // answered 200 with a body of the wrong shape, a different one each time: {}, an array, a
  // string, lists whose items or metadata have the wrong types, the run's real objects with
  // every status field of the wrong type or out of range, non-JSON, a truncated body; watches
  // get a stream of such events. The simulated cluster runs on meanwhile.
  void answer_malformed(bool on);
  // Cluster-scoped v1 Nodes (list, get, watch): a node joining now, not ready yet (with the GKE
  // node pool label when `pool` is given, and `labels` besides), its Ready condition turning True
  // now, and a node going (deleted: a spot node taken back, a node scaled down).
  void add_node(const std::string& name, const std::string& pool = "",
                const std::map<std::string, std::string>& labels = {});
  void make_node_ready(const std::string& name);
  void delete_node(const std::string& name);
  // Stops answering (connections refused) until resume(); the simulated cluster runs on.
  void pause();
  void resume();

  FakeApiRecord record() const;
  std::vector<nlohmann::json> objects(const std::string& resource) const;  // "jobs" or "pods"
  int create_requests(const std::string& job_name) const;
  std::int64_t resource_version() const;

 private:
  struct Event {
    std::int64_t rv;
    std::string resource;
    std::string type;
    nlohmann::json object;
  };
  struct PodState {
    PodPlan plan;
    data::Micros since = 0;  // steady time of the last phase change
  };
  // A Job's pods as its controller sees them: the current pod of each index (one pod, index 0,
  // for a non-indexed Job), the indexes that succeeded and the pods that failed.
  struct JobPods {
    std::map<int, std::string> current;  // index -> ns/name of its pod
    std::map<int, int> generation;       // index -> pods made for it so far
    std::set<int> succeeded;
    int failed = 0;
  };
  struct WatchState;

  void start_http();
  void stop_http();
  void route();
  void handle(const std::string& resource, const httplib::Request& req, httplib::Response& res);
  void list(const std::string& resource, const std::string& ns, const httplib::Request& req,
            httplib::Response& res);
  void watch(const std::string& resource, const std::string& ns, const httplib::Request& req,
             httplib::Response& res);
  void create(const std::string& resource, const std::string& ns, const httplib::Request& req,
              httplib::Response& res);
  void remove(const std::string& resource, const std::string& ns, const std::string& name,
              const httplib::Request& req, httplib::Response& res);
  bool take_injected_error(const httplib::Request& req, httplib::Response& res);
  bool take_malformed_answer(const std::string& resource, const std::string& ns, const httplib::Request& req,
                             httplib::Response& res);

  // Store mutations (mutex held): bump the resourceVersion, record the event, wake watchers.
  void put(const std::string& resource, nlohmann::json object, const std::string& type);
  void erase(const std::string& resource, const std::string& key);
  void note_unfinished();
  void kubelet_loop();
  void step(data::Micros now);
  void finish_job(nlohmann::json& job, bool succeeded, const std::string& reason,
                  const std::string& message);
  nlohmann::json make_pod(const nlohmann::json& job, int index, const std::string& stamp, data::Micros now);
  // Moves a pod on by its plan; true when it changed (phase, or ended by end_pod()).
  bool step_pod(nlohmann::json& pod, PodState& state, const std::string& stamp, data::Micros now);

  FakeApiServerOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::map<std::string, nlohmann::json>> objects_;  // resource -> ns/name
  std::map<std::string, PodState> pod_states_;                           // ns/name of pod
  std::map<std::string, data::Micros> job_started_;                      // ns/name of job
  std::map<std::string, JobPods> job_pods_;                              // ns/name of job
  std::map<std::string, int> create_requests_;
  std::deque<Event> events_;
  std::int64_t rv_ = 1;
  std::int64_t oldest_watchable_rv_ = 1;
  std::uint64_t uid_counter_ = 0;
  std::uint64_t drop_generation_ = 0;
  std::uint64_t expire_generation_ = 0;
  bool expire_next_ = false;
  int injected_left_ = 0;
  int injected_status_ = 0;
  int injected_retry_after_ = 0;
  std::string injected_method_;
  bool malformed_ = false;
  bool echo_headers_ = false;
  FakeApiRecord record_;
  bool stopping_ = false;

  int port_ = 0;
  std::unique_ptr<httplib::Server> http_;
  std::thread http_thread_;
  std::thread kubelet_thread_;
};

}  // namespace millrace::cluster_adapter
