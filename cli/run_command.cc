// `millrace run`: runs a plan for real through the scheduler core on a real cluster, chosen by
// --cluster: local processes (the embedded default) or Kubernetes Jobs. The span is cut by a
// named partitioner, every finished attempt is recorded in the trace store at once, a
// status/metrics server and a progress line report on it, a Ctrl-C stops it gracefully, and
// `--resume RUN` continues a run that was interrupted or killed without re-running what already
// succeeded (on Kubernetes, re-attaching to the run's Jobs still in the cluster). A run has one
// live owner (run_ownership.h): a resume while its owner runs is refused, and one after a crash
// first ends what the dead session left running. Records wait in memory while another process
// holds the store locked (store_backlog.h). Only how the cluster is built and re-attached
// differs between clusters; the rest of a run is shared.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/autoscale_options.h"
#include "cli/commands.h"
#include "cli/current_step.h"
#include "cli/memory_budget.h"
#include "cli/option_checks.h"
#include "cli/partition_size.h"
#include "cli/run_summary_text.h"
#include "cli/span_option.h"
#include "cluster_adapter/http/status_server.h"
#include "cluster_adapter/kubernetes/kube_config.h"
#include "cluster_adapter/kubernetes/kubernetes_cluster.h"
#include "cluster_adapter/kubernetes/kubernetes_resume.h"
#include "cluster_adapter/kubernetes/kubernetes_status.h"
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_status.h"
#include "cluster_adapter/local/local_process_cluster.h"
#include "cluster_adapter/realtime/progress_line.h"
#include "cluster_adapter/realtime/real_run_loop.h"
#include "cluster_adapter/realtime/run_ownership.h"
#include "cluster_adapter/realtime/run_recorder.h"
#include "cluster_adapter/realtime/shutdown_signal.h"
#include "cluster_adapter/realtime/wall_clock.h"
#include "data/cost_model.h"
#include "data/error.h"
#include "data/redaction.h"
#include "data/run_summary.h"
#include "data/trace_store.h"
#include "partitioners/registry.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/scheduler.h"

namespace millrace::cli {

namespace {

using nlohmann::json;

constexpr int kLiveBusyTimeoutMs = 100;
constexpr data::Micros kPublishEvery = 100 * data::kMicrosPerMilli;

struct LocalSettings {
  cluster_adapter::LocalProcessOptions process;
  double timeout_s = 0;
  double kill_grace_s = 5;
  std::string log_dir;  // empty: STORE.logs/run-ID
};

struct KubernetesSettings {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;  // empty: the kubeconfig's or the service account's
  bool in_cluster = false;
  std::string job_template_path;
  json job_template;           // the manifest, kept with the run
  int history_succeeded = 10;
  int history_failed = 10;
  int active_deadline_s = 0;   // 0: none
  double api_patience_s = 600;
  double unschedulable_after_s = 300;
  std::string mode = "job-per-item";  // or worker-pool
  std::string lease_address;          // worker-pool: required (0.0.0.0 only when asked for)
  int lease_port = 8642;
  std::string lease_url;              // empty: http://HOSTNAME:PORT
  double lease_duration_s = 60;
  double heartbeat_s = 20;
};

struct RunOptions {
  std::string cluster = "local";
  std::string store_path;
  std::string resume;
  std::string name;
  std::string units = "units";
  std::string span;
  std::string partitioner;
  std::string model_path;
  partitioners::PartitionParams partition;
  std::string policy;           // empty: the cluster's default
  int workers = 1;
  AutoscaleOptions autoscale;
  int max_attempts = 3;
  double backoff_s = 0;
  int status_port = -1;
  LocalSettings local;
  KubernetesSettings k8s;
};

// ---- the clusters ---------------------------------------------------------------------------

// A cluster built for one session of a run.
class RunCluster {
 public:
  virtual ~RunCluster() = default;
  virtual cluster_adapter::PolledCluster& cluster() = 0;
  // Where the attempts run (logs, API server), for the messages.
  virtual std::string where() const = 0;
  // --resume, before the scheduler exists: adds to `snapshot` attempts an earlier session left
  // running in the cluster; once it exists, re-attaches them.
  virtual void add_survivors(scheduler::SchedulerSnapshot&) {}
  virtual void reattach(const std::vector<data::WorkItem>&, const scheduler::SchedulerSnapshot&) {}
  // Local processes: how the session holds its attempts' process trees, and who hears of each
  // (nullptr / ignored: the attempts are not processes of this machine).
  virtual const cluster_adapter::ProcessTrees* process_trees() const { return nullptr; }
  virtual void set_tree_observer(cluster_adapter::TreeObserver) {}
  // Why the run cannot go on for now (empty: it can); the run then stops, its state kept.
  virtual std::string trouble() const { return ""; }
  // The run loop ended (not for trouble), the run over or stopped: lets what the cluster still
  // has to send get there.
  virtual void flush(bool /*run_over*/) {}
  // The cluster's own state for GET /status ("cluster"; null: none) and GET /metrics.
  virtual json status_json(data::Micros /*now*/) const { return nullptr; }
  virtual std::string metrics_text(data::Micros /*now*/) const { return ""; }
};

class LocalRun : public RunCluster {
 public:
  LocalRun(const cluster_adapter::LocalProcessOptions& options, const scheduler::Clock& clock,
           cluster_adapter::ShutdownSignal& shutdown)
      : cluster_(options, clock, &shutdown), log_dir_(options.log_dir) {}
  cluster_adapter::PolledCluster& cluster() override { return cluster_; }
  std::string where() const override { return "logs in " + log_dir_; }
  const cluster_adapter::ProcessTrees* process_trees() const override { return &cluster_.trees(); }
  void set_tree_observer(cluster_adapter::TreeObserver observer) override {
    cluster_.set_tree_observer(std::move(observer));
  }

 private:
  cluster_adapter::LocalProcessCluster cluster_;
  std::string log_dir_;
};

cluster_adapter::KubeConfig kube_config(const KubernetesSettings& k) {
  cluster_adapter::KubeConfig config = k.in_cluster ? cluster_adapter::load_in_cluster_config()
                                                    : cluster_adapter::load_kubeconfig(k.kubeconfig, k.context);
  if (!k.namespace_name.empty()) config.namespace_name = k.namespace_name;
  return config;
}

// A new run is refused before anything is recorded when its API cannot be used: a server
// certificate the configured CA did not sign, refused credentials, no right to list Jobs in the
// namespace (each a KubeApiError naming the server). An API that does not answer, or answers
// with anything but a list of Jobs, is waited for up to the API patience.
void check_api_access(const KubernetesSettings& k) {
  cluster_adapter::KubeConfig config = kube_config(k);
  const auto since = std::chrono::steady_clock::now();
  const auto patience = std::chrono::microseconds(data::micros_from_seconds(k.api_patience_s));
  std::string version;
  cluster_adapter::KubeClient(config).list(
      "/apis/batch/v1/namespaces/" + config.namespace_name + "/jobs?limit=1", version, {},
      [&](const cluster_adapter::KubeApiError& error, data::Micros) {
        if (std::chrono::steady_clock::now() - since >= patience) throw error;
      });
}

// Why a Kubernetes run stops: its API has failed for longer than the patience (empty: it has not).
std::string api_trouble(const cluster_adapter::ApiHealthStatus& api, data::Micros now, data::Micros patience) {
  if (api.reachable || now - api.unreachable_since < patience) return "";
  return "the Kubernetes API has failed for more than " + std::to_string(patience / data::kMicrosPerSecond) + " s (" +
         api.last_error + ")";
}

// What both Kubernetes modes share: the cluster made from the run's kubeconfig and Job
// template, the API's patience, and the cluster's own state in GET /status and /metrics.
template <typename Cluster>
class KubernetesRunBase : public RunCluster {
 public:
  template <typename ClusterOptions>
  KubernetesRunBase(const RunOptions& o, const std::string& input, ClusterOptions options, const scheduler::Clock& clock)
      : config_(kube_config(o.k8s)),
        cluster_(cluster_adapter::KubeClient(config_),
                 cluster_adapter::JobTemplate::parse(o.k8s.job_template.dump(), input + " job template"),
                 std::move(options), clock),
        clock_(clock),
        patience_(data::micros_from_seconds(o.k8s.api_patience_s)) {}
  cluster_adapter::PolledCluster& cluster() override { return cluster_; }
  std::string where() const override { return where_; }
  json status_json(data::Micros now) const override { return cluster_adapter::to_json(cluster_.status(), now); }
  std::string metrics_text(data::Micros now) const override {
    cluster_adapter::PrometheusWriter out;
    cluster_adapter::write_metrics(out, cluster_.status(), now);
    return out.text();
  }

 protected:
  static constexpr data::Micros kFlushWait = 30 * data::kMicrosPerSecond;

  cluster_adapter::KubeConfig config_;
  Cluster cluster_;
  const scheduler::Clock& clock_;
  data::Micros patience_;
  std::string where_;
};

// Job-per-item mode: a Job per attempt.
class KubernetesRun : public KubernetesRunBase<cluster_adapter::KubernetesCluster> {
 public:
  KubernetesRun(const RunOptions& o, const std::string& run_label, const std::string& input,
                const scheduler::Clock& clock)
      : KubernetesRunBase(o, input, options(o, run_label), clock) {
    where_ = "Jobs labelled " + std::string(cluster_adapter::kRunLabel) + "=" + cluster_adapter::dns_label(run_label) +
             " in namespace " + config_.namespace_name + " at " + config_.server;
  }

  // Jobs an earlier session left running: the unrecorded latest attempts are adopted, and those
  // whose attempt the store says ended (a Ctrl-C's deletes that never reached the API) are
  // deleted before anything new is created, so the cap holds.
  void add_survivors(scheduler::SchedulerSnapshot& snapshot) override {
    std::vector<cluster_adapter::ExistingJob> jobs;
    try {
      jobs = cluster_.existing_jobs(patience_);
    } catch (const cluster_adapter::KubeApiError& error) {
      throw data::Error(where_, std::string("cannot list the run's Jobs to resume: ") + error.what());
    }
    cluster_adapter::add_unrecorded_jobs(snapshot, jobs, clock_.now());
    std::vector<std::string> stale = cluster_adapter::stale_jobs(snapshot, jobs);
    if (stale.empty()) return;
    std::string names;
    for (const std::string& name : stale) {
      names += (names.empty() ? "" : ", ") + name;
      cluster_.delete_job(name);
    }
    std::cerr << "millrace: deleting " << stale.size() << " Jobs whose attempts already ended: " << names << "\n";
  }
  void reattach(const std::vector<data::WorkItem>& items, const scheduler::SchedulerSnapshot& snapshot) override {
    cluster_adapter::adopt_in_flight(cluster_, items, snapshot);
  }
  // Waits for the queued deletes (a Ctrl-C's) as long as the API's patience allows at most.
  void flush(bool) override {
    if (!cluster_.flush(std::min(kFlushWait, patience_))) {
      std::cerr << "millrace: " << cluster_.status().requests_pending
                << " Job requests did not reach the Kubernetes API; a --resume of the run deletes its Jobs left "
                   "running\n";
    }
  }
  std::string trouble() const override { return api_trouble(cluster_.status().api, clock_.now(), patience_); }

 private:
  static cluster_adapter::KubernetesClusterOptions options(const RunOptions& o, const std::string& run_label) {
    cluster_adapter::KubernetesClusterOptions options;
    options.run = run_label;
    options.max_concurrency = o.workers;
    options.keep_succeeded = o.k8s.history_succeeded;
    options.keep_failed = o.k8s.history_failed;
    if (o.k8s.active_deadline_s > 0) options.active_deadline_seconds = o.k8s.active_deadline_s;
    options.unschedulable_after = data::micros_from_seconds(o.k8s.unschedulable_after_s);
    return options;
  }
};

// Worker-pool mode: one Indexed Job of --workers pods that lease the ranges from this run.
class WorkerPoolRun : public KubernetesRunBase<cluster_adapter::WorkerPoolCluster> {
 public:
  WorkerPoolRun(const RunOptions& o, const std::string& run_label, const std::string& input,
                const scheduler::Clock& clock)
      : KubernetesRunBase(o, input, options(o, run_label), clock) {
    where_ = "the Indexed Job " + cluster_adapter::pool_job_name(run_label) + " (" + std::to_string(o.workers) +
             " worker pods) in namespace " + config_.namespace_name + " at " + config_.server +
             ", its workers leasing ranges from " + cluster_.lease_url();
  }
  std::string trouble() const override {
    cluster_adapter::WorkerPoolStatus status = cluster_.status();
    std::string api = api_trouble(status.api, clock_.now(), patience_);
    return api.empty() ? status.trouble : api;
  }
  // The run over, workers are told to exit, else to wait for a resume; the pool's Job is deleted.
  void flush(bool run_over) override {
    if (!cluster_.shut_down(run_over, std::min(kFlushWait, patience_))) {
      std::cerr << "millrace: the delete of the worker pool Job did not reach the Kubernetes API; a --resume of "
                   "the run takes its workers back\n";
    }
  }

 private:
  static cluster_adapter::WorkerPoolOptions options(const RunOptions& o, const std::string& run_label) {
    cluster_adapter::WorkerPoolOptions options;
    options.run = run_label;
    options.workers = o.workers;
    options.lease_host = o.k8s.lease_address;
    options.lease_port = o.k8s.lease_port;
    options.lease_url = o.k8s.lease_url;
    options.lease.duration = data::micros_from_seconds(o.k8s.lease_duration_s);
    options.lease.heartbeat = data::micros_from_seconds(o.k8s.heartbeat_s);
    options.unschedulable_after = data::micros_from_seconds(o.k8s.unschedulable_after_s);
    return options;
  }
};

// Worker-pool mode's own options, checked before anything is recorded.
void check_worker_pool(RunOptions& o) {
  const std::string input = "--mode worker-pool";
  if (o.policy.empty()) o.policy = "fixed-pool";
  if (o.policy != "fixed-pool") {
    throw data::Error(input, "runs a fixed pool of --workers pods: --policy must be fixed-pool, not " + o.policy);
  }
  if (o.k8s.active_deadline_s > 0) {
    throw data::Error(input, "--active-deadline is per attempt's Job; pool workers hold leases that expire "
                             "unless extended (--lease-duration)");
  }
  if (o.k8s.lease_address.empty()) {
    throw data::Error(input, "needs --lease-address: where the lease API listens, an address the pods reach "
                             "(0.0.0.0 for every interface)");
  }
  if (o.k8s.lease_duration_s <= 0 || o.k8s.heartbeat_s <= 0 || o.k8s.heartbeat_s >= o.k8s.lease_duration_s) {
    throw data::Error(input, "needs 0 < --heartbeat < --lease-duration");
  }
  cluster_adapter::JobTemplate::parse(o.k8s.job_template.dump(), o.k8s.job_template_path)
      .render_pool("check", "default", o.workers, "http://check");
}

// What a cluster needs: its options checked for a new run (before anything is recorded), kept
// in the run's parameters for --resume, and the cluster built for a session of the run.
struct ClusterKind {
  const char* name;
  const char* default_policy;
  void (*check)(RunOptions& o);
  json (*save)(const RunOptions& o);
  void (*load)(const json& p, RunOptions& o);
  std::unique_ptr<RunCluster> (*make)(RunOptions& o, const data::Run& run, const scheduler::Clock& clock,
                                      cluster_adapter::ShutdownSignal& shutdown);
};

const ClusterKind kClusterKinds[] = {
    {"local", "fixed-pool",
     [](RunOptions& o) {
       if (o.local.process.command.empty()) throw data::Error("millrace run", "--cluster local needs --command");
       if (o.k8s.mode != "job-per-item") throw data::Error("--mode " + o.k8s.mode, "applies to --cluster kubernetes only");
       cluster_adapter::CommandTemplate check(o.local.process.command);
       o.local.process.timeout = data::micros_from_seconds(o.local.timeout_s);
       o.local.process.kill_grace = data::micros_from_seconds(o.local.kill_grace_s);
     },
     [](const RunOptions& o) {
       return json{{"command", o.local.process.command},
                   {"timeout_us", o.local.process.timeout},
                   {"kill_grace_us", o.local.process.kill_grace},
                   {"log_dir", o.local.log_dir}};
     },
     [](const json& p, RunOptions& o) {
       o.local.process.command = p.at("command").get<std::string>();
       o.local.process.timeout = p.at("timeout_us").get<data::Micros>();
       o.local.process.kill_grace = p.at("kill_grace_us").get<data::Micros>();
       o.local.log_dir = p.at("log_dir").get<std::string>();
     },
     [](RunOptions& o, const data::Run& run, const scheduler::Clock& clock,
        cluster_adapter::ShutdownSignal& shutdown) -> std::unique_ptr<RunCluster> {
       // An empty log directory in the parameters means the default, named after the run.
       o.local.process.log_dir = o.local.log_dir.empty() ? o.store_path + ".logs/run-" + std::to_string(run.id)
                                                         : o.local.log_dir;
       o.local.process.concurrency = o.workers;
       return std::make_unique<LocalRun>(o.local.process, clock, shutdown);
     }},
    {"kubernetes", "job-per-item",
     [](RunOptions& o) {
       if (o.k8s.job_template_path.empty()) throw data::Error("millrace run", "--cluster kubernetes needs --job-template");
       if (o.k8s.kubeconfig.empty() && !o.k8s.in_cluster) {
         throw data::Error("millrace run", "--cluster kubernetes needs --kubeconfig FILE or --in-cluster");
       }
       o.k8s.job_template = cluster_adapter::JobTemplate::load(o.k8s.job_template_path).manifest();
       if (o.k8s.mode == "worker-pool") check_worker_pool(o);
       check_api_access(o.k8s);
     },
     [](const RunOptions& o) {
       return json{{"kubeconfig", o.k8s.kubeconfig},
                   {"context", o.k8s.context},
                   {"namespace", o.k8s.namespace_name},
                   {"in_cluster", o.k8s.in_cluster},
                   {"job_template", o.k8s.job_template},
                   {"history_succeeded", o.k8s.history_succeeded},
                   {"history_failed", o.k8s.history_failed},
                   {"active_deadline_us", o.k8s.active_deadline_s * data::kMicrosPerSecond},
                   {"api_patience_us", data::micros_from_seconds(o.k8s.api_patience_s)},
                   {"unschedulable_after_us", data::micros_from_seconds(o.k8s.unschedulable_after_s)},
                   {"mode", o.k8s.mode},
                   {"lease_address", o.k8s.lease_address},
                   {"lease_port", o.k8s.lease_port},
                   {"lease_url", o.k8s.lease_url},
                   {"lease_duration_us", data::micros_from_seconds(o.k8s.lease_duration_s)},
                   {"heartbeat_us", data::micros_from_seconds(o.k8s.heartbeat_s)}};
     },
     [](const json& p, RunOptions& o) {
       // Credentials may have moved since: a --kubeconfig / --context given now wins.
       if (o.k8s.kubeconfig.empty()) o.k8s.kubeconfig = p.at("kubeconfig").get<std::string>();
       if (o.k8s.context.empty()) o.k8s.context = p.at("context").get<std::string>();
       o.k8s.namespace_name = p.at("namespace").get<std::string>();
       o.k8s.in_cluster = p.at("in_cluster").get<bool>();
       o.k8s.job_template = p.at("job_template");
       o.k8s.history_succeeded = p.at("history_succeeded").get<int>();
       o.k8s.history_failed = p.at("history_failed").get<int>();
       // Durations are kept in microseconds (stores of schema 6 and older are migrated on open).
       auto seconds_at = [&p](const char* key, double fallback) {
         return p.contains(key) ? data::seconds_from_micros(p.at(key).get<data::Micros>()) : fallback;
       };
       o.k8s.active_deadline_s = static_cast<int>(p.at("active_deadline_us").get<data::Micros>() / data::kMicrosPerSecond);
       o.k8s.api_patience_s = seconds_at("api_patience_us", o.k8s.api_patience_s);
       // Runs recorded before these options existed get their defaults.
       o.k8s.unschedulable_after_s = seconds_at("unschedulable_after_us", o.k8s.unschedulable_after_s);
       o.k8s.mode = p.value("mode", o.k8s.mode);
       o.k8s.lease_address = p.value("lease_address", o.k8s.lease_address);
       o.k8s.lease_port = p.value("lease_port", o.k8s.lease_port);
       o.k8s.lease_url = p.value("lease_url", o.k8s.lease_url);
       o.k8s.lease_duration_s = seconds_at("lease_duration_us", o.k8s.lease_duration_s);
       o.k8s.heartbeat_s = seconds_at("heartbeat_us", o.k8s.heartbeat_s);
     },
     [](RunOptions& o, const data::Run& run, const scheduler::Clock& clock,
        cluster_adapter::ShutdownSignal&) -> std::unique_ptr<RunCluster> {
       // Jobs are named and labelled after the run's name and id.
       std::string label = run.name + "-" + std::to_string(run.id);
       std::string input = "run " + std::to_string(run.id);
       if (o.k8s.mode == "worker-pool") return std::make_unique<WorkerPoolRun>(o, label, input, clock);
       return std::make_unique<KubernetesRun>(o, label, input, clock);
     }},
};

std::string cluster_names() {
  std::string names;
  for (const ClusterKind& kind : kClusterKinds) names += (names.empty() ? "" : ", ") + std::string(kind.name);
  return names;
}

const ClusterKind& cluster_kind(const std::string& name, const std::string& input) {
  for (const ClusterKind& kind : kClusterKinds) {
    if (name == kind.name) return kind;
  }
  throw data::Error(input, "unknown cluster '" + name + "' (known: " + cluster_names() + ")");
}

// ---- the run --------------------------------------------------------------------------------

// What --resume needs to rebuild the run, kept in the run's parameters.
json run_parameters(const RunOptions& o, const ClusterKind& kind) {
  json p = kind.save(o);
  p["cluster"] = kind.name;
  p["workers"] = o.workers;
  p["max_attempts"] = o.max_attempts;
  p["backoff_us"] = data::micros_from_seconds(o.backoff_s);
  p.update(to_json(o.autoscale));
  return p;
}

const ClusterKind& load_parameters(const data::Run& run, RunOptions& o) {
  const std::string input = "run " + std::to_string(run.id);
  if (run.source != data::RunSource::kReal) throw data::Error(input, "was not a real run, it cannot be resumed");
  try {
    json p = json::parse(run.parameters);
    const ClusterKind& kind = cluster_kind(p.at("cluster").get<std::string>(), input);
    kind.load(p, o);
    o.workers = p.at("workers").get<int>();
    o.max_attempts = p.at("max_attempts").get<int>();
    o.backoff_s = data::seconds_from_micros(p.at("backoff_us").get<data::Micros>());
    o.autoscale = autoscale_options_from(p);  // runs recorded before autoscale's settings: defaults
    o.policy = run.policy;
    return kind;
  } catch (const json::exception& e) {
    throw data::Error(input, std::string("parameters cannot be read to resume: ") + e.what());
  }
}

// Peak memory of `run` per range of its plan (items, scheduler, recorder, store rows): 461
// bytes, measured with /usr/bin/time -f %M between plans of 10^5 and 10^6 ranges; and per
// worker slot: 33 bytes, between 10^6 and 10^7 --workers.
constexpr double kRunBytesPerRange = 461;
constexpr double kRunBytesPerWorker = 33;

std::vector<data::WorkItem> plan_items(const RunOptions& o) {
  partitioners::PartitionParams params = o.partition;
  params.span = parse_span(o.span);
  if (params.workers == 0) params.workers = o.workers;
  std::optional<data::CostModel> model;
  if (!o.model_path.empty()) model = data::CostModel::load(o.model_path);
  params.model = model ? &*model : nullptr;
  require_memory_for_ranges(o.partitioner, params, kRunBytesPerRange);
  require_memory(o.workers, kRunBytesPerWorker, "--workers " + std::to_string(o.workers), "worker slots");
  CurrentStep step("planning the ranges of --span " + o.span);
  std::vector<data::WorkItem> items;
  for (const data::Range& range : partitioners::make_partition(o.partitioner, params).work_ranges()) {
    data::WorkItem& item = items.emplace_back();
    item.id = std::to_string(range.first) + "-" + std::to_string(range.last());
    item.range = range;
    item.predicted = model ? model->predict(range) : 0;
  }
  return items;
}

void publish(const scheduler::Scheduler& scheduler, const cluster_adapter::RunRecorder& recorder,
             const RunCluster& target, cluster_adapter::StatusServer* server, cluster_adapter::ProgressLine& progress,
             int slots) {
  scheduler::StatusReport status = scheduler.status();
  if (server != nullptr) {
    json document = scheduler::to_json(status);
    if (json cluster = target.status_json(status.at); !cluster.is_null()) document["cluster"] = std::move(cluster);
    server->publish({document.dump(), cluster_adapter::prometheus_text(recorder.metrics(status)) +
                                          target.metrics_text(status.at)});
  }
  progress.update(cluster_adapter::Progress{static_cast<std::int64_t>(status.num_items - status.num_remain),
                                            static_cast<std::int64_t>(status.num_items),
                                            static_cast<std::int64_t>(status.jobs_in_progress.size()),
                                            static_cast<std::int64_t>(status.jobs_failed.size()),
                                            recorder.remaining_predicted(), slots});
}

// Autoscale grows its pool to meet a deadline: it needs one, and the other policies take none.
void check_autoscale_options(const RunOptions& o) {
  if (o.policy == "autoscale" && o.autoscale.deadline == 0) {
    throw data::Error("--policy autoscale", "needs --deadline, the wanted end of the run from its start (e.g. 48h)");
  }
  if (o.policy != "autoscale" && (o.autoscale.deadline > 0 || o.autoscale.scale_up_delay > 0 ||
                                  o.autoscale.min_workers != AutoscaleOptions{}.min_workers)) {
    throw data::Error("--policy " + o.policy, "--deadline, --scale-up-delay and --min-workers apply to --policy "
                                              "autoscale only");
  }
}

void run(RunOptions& o) {
  data::TraceStore store = data::TraceStore::open(o.store_path);
  // Listening first: a port that cannot be had stops the run before anything is recorded.
  std::optional<cluster_adapter::StatusServer> server;
  if (o.status_port >= 0) {
    server.emplace(o.status_port);
    std::cerr << "millrace: status on http://127.0.0.1:" << server->port() << "/status\n";
  }
  // A live run never blocks long on another process's lock: its writes wait in memory.
  store.set_busy_timeout(kLiveBusyTimeoutMs);
  cluster_adapter::StoreBacklog writes(store, &std::cerr);
  cluster_adapter::WallClock clock;
  std::int64_t run_id = 0;
  std::vector<data::WorkItem> items;
  const ClusterKind* kind = nullptr;
  if (!o.resume.empty()) {
    run_id = store.find_run(o.resume);
    kind = &load_parameters(store.run(run_id), o);
    items = store.items(run_id);
  } else {
    kind = &cluster_kind(o.cluster, "--cluster");
    if (o.span.empty() || o.partitioner.empty()) {
      throw data::Error("millrace run", "--span and --partitioner are required unless --resume is given");
    }
    kind->check(o);
    if (o.policy.empty()) o.policy = kind->default_policy;
    check_autoscale_options(o);
    items = plan_items(o);
    data::Run record;
    record.name = o.name.empty() ? "run" : o.name;
    record.source = data::RunSource::kReal;
    record.units = o.units;
    record.partitioner = o.partitioner;
    record.policy = o.policy;
    record.started = clock.now();
    record.parameters = run_parameters(o, *kind).dump();
    writes.add([&](data::TraceStore& s) { run_id = s.add_run(record, items, {}); });
    writes.drain();
  }
  cluster_adapter::RunOwnership owner(writes, run_id, clock.now(), std::cerr);
  const std::string input = "run " + std::to_string(run_id);

  cluster_adapter::ShutdownSignal shutdown;
  std::unique_ptr<RunCluster> target = kind->make(o, store.run(run_id), clock, shutdown);
  if (const cluster_adapter::ProcessTrees* trees = target->process_trees()) owner.set_trees(*trees);
  target->set_tree_observer([&](const data::WorkItem& item, int attempt, const std::string& worker,
                                const cluster_adapter::TreeIdentity& tree) {
    owner.record_tree(item, attempt, worker, tree, clock.now());
  });
  // What earlier sessions left running ends before any range runs again.
  owner.sweep(clock.now());
  const std::vector<data::Attempt> recorded = store.attempts(run_id);
  std::cerr << "millrace: " << input << ": " << items.size() << " items, " << data::redact(target->where()) << "\n";

  scheduler::SchedulerOptions options;
  options.plan_name = input;
  options.policy = o.policy;
  options.params = policy_params(o.workers, o.autoscale);
  options.retry.max_attempts = o.max_attempts;
  options.retry.backoff = data::micros_from_seconds(o.backoff_s);
  std::unique_ptr<scheduler::Scheduler> scheduler;
  if (o.resume.empty()) {
    scheduler = std::make_unique<scheduler::Scheduler>(items, options, target->cluster(), clock);
  } else {
    scheduler::SchedulerSnapshot snapshot = cluster_adapter::resume_snapshot(items, recorded, options.retry);
    target->add_survivors(snapshot);
    scheduler = std::make_unique<scheduler::Scheduler>(items, options, target->cluster(), clock, snapshot);
    target->reattach(scheduler->items(), snapshot);
  }
  cluster_adapter::RunRecorder recorder(writes, run_id, scheduler->items(), recorded);
  scheduler->set_observer([&recorder](scheduler::AttemptHandle, const data::Attempt& a) { recorder.observe(a); });

  cluster_adapter::ProgressLine progress(std::cout, isatty(STDOUT_FILENO) == 1);
  std::string trouble;
  // Publishing walks every item: at most every kPublishEvery, so an attempt costs the same
  // whatever the size of the plan.
  data::Micros published = 0;
  auto step = [&] {
    if (shutdown.requested()) scheduler->stop();
    writes.retry();
    owner.heartbeat(clock.now());
    if (clock.now() - published >= kPublishEvery || scheduler->finished() || scheduler->stopped()) {
      publish(*scheduler, recorder, *target, server ? &*server : nullptr, progress, o.workers);
      published = clock.now();
    }
    trouble = target->trouble();
  };

  scheduler->start();
  cluster_adapter::RealRunLoop loop(clock, target->cluster());
  loop.run_until([&] { return scheduler->finished() || scheduler->stopped() || !trouble.empty(); }, step);
  step();
  if (trouble.empty()) target->flush(scheduler->finished());
  progress.finish();
  if (scheduler->finished()) writes.add([&](data::TraceStore& s) { s.set_run_ended(run_id, clock.now()); });
  owner.release();
  writes.drain();

  const scheduler::StatusReport status = scheduler->status();
  const std::string again = "; continue with `millrace run --store " + o.store_path + " --resume " +
                            std::to_string(run_id) + "`";
  if (!trouble.empty()) {
    throw data::Error(input, trouble + ": stopped with " + std::to_string(status.num_items - status.num_succeeded) +
                                 " items not succeeded, " + std::to_string(status.jobs_in_progress.size()) +
                                 " of them left running in the cluster" + again);
  }
  if (!scheduler->finished()) {
    throw data::Error(input, "interrupted with " + std::to_string(status.num_items - status.num_succeeded) +
                                 " items not succeeded" + again);
  }
  std::cout << input << ": " << status.num_succeeded << "/" << status.num_items << " items succeeded\n";
  // The report: the run's summary as `show` prints it, from what the store recorded.
  print_run_summary(store.run(run_id), store.items(run_id), data::summarize(store.items(run_id), store.attempts(run_id)),
                    std::cout);
  if (scheduler->run_failed()) {
    throw data::Error(input, std::to_string(status.jobs_failed.size()) + " items failed, " + target->where());
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run a plan for real (local processes or Kubernetes Jobs), recording every attempt");
  cmd->add_option("--cluster", o->cluster, "where attempts run: " + cluster_names())->default_val("local");
  cmd->add_option("--store", o->store_path, "trace store (SQLite file) that records the run")->required();
  cmd->add_option("--resume", o->resume, "continue this run (id or name) from what the store recorded");
  cmd->add_option("--name", o->name, "name of the new run (Kubernetes Jobs are named after it and the run id)");
  cmd->add_option("--units", o->units, "what a unit of the span is (ledgers, blocks, ...)");
  cmd->add_option("--span", o->span, "FIRST:LAST, inclusive units to process");
  std::string names;
  for (const std::string& n : partitioners::partitioner_names()) names += (names.empty() ? "" : ", ") + n;
  cmd->add_option("--partitioner", o->partitioner, "one of: " + names);
  cmd->add_option("--model", o->model_path, "cost model JSON (from `millrace fit`) for predictions and ETA");
  cmd->add_option("--ranges", o->partition.ranges, "number of ranges")->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--range-length", o->partition.range_length, "uniform: units per range")
      ->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--overlap", o->partition.overlap, "units each range also replays before its first")
      ->transform(whole_number(0, kMaxUnit));
  cmd->add_option("--align", o->partition.align, "cuts fall on multiples of this")->transform(whole_number(1, kMaxUnit));
  std::string policies;
  for (const std::string& n : scheduler::policy_names()) policies += (policies.empty() ? "" : ", ") + n;
  cmd->add_option("--policy", o->policy,
                  "concurrency policy: " + policies + " (default: fixed-pool locally, job-per-item on Kubernetes)")
      ->check(CLI::IsMember(scheduler::policy_names()));
  cmd->add_option("--workers", o->workers, "attempts running at once (pool size; on Kubernetes, unfinished Jobs)")
      ->default_val(1)
      ->transform(whole_number(1));
  add_autoscale_options(cmd, o->autoscale);
  cmd->add_option("--max-attempts", o->max_attempts, "attempts per item, first included")
      ->default_val(3)
      ->transform(whole_number(1));
  cmd->add_option("--backoff", o->backoff_s, "seconds before the first retry (doubling, at most the first wait's cap)")
      ->transform(seconds(scheduler::RetryPolicy{}.max_backoff));
  cmd->add_option("--status-port", o->status_port,
                  "serve /status, /metrics and /healthz on 127.0.0.1:PORT (0: any free port)")
      ->transform(tcp_port());

  cmd->add_option("--command", o->local.process.command,
                  "local: command template run by /bin/sh -c per attempt; placeholders {first} {count} {last} "
                  "(inclusive) {end} (exclusive) {end_count} {id} {attempt} {payload} {type} {worker}");
  cmd->add_option("--timeout", o->local.timeout_s, "local: seconds per attempt before it is killed (0: none)")
      ->transform(seconds());
  cmd->add_option("--kill-grace", o->local.kill_grace_s, "local: seconds between SIGTERM and SIGKILL")
      ->default_val(5)
      ->transform(seconds());
  cmd->add_option("--log-dir", o->local.log_dir, "local: per-attempt stdout/stderr (default STORE.logs/run-ID)");

  cmd->add_option("--kubeconfig", o->k8s.kubeconfig, "kubernetes: kubeconfig file (its current context)");
  cmd->add_option("--context", o->k8s.context, "kubernetes: kubeconfig context instead of the current one");
  cmd->add_option("--namespace", o->k8s.namespace_name, "kubernetes: namespace of the Jobs (default: the context's)");
  cmd->add_flag("--in-cluster", o->k8s.in_cluster, "kubernetes: use the pod's service account instead of a kubeconfig");
  cmd->add_option("--job-template", o->k8s.job_template_path,
                  "kubernetes: batch/v1 Job manifest (JSON) with the placeholders of --command but {worker}, "
                  "and MILLRACE_* env vars");
  cmd->add_option("--history-succeeded", o->k8s.history_succeeded, "kubernetes: succeeded Jobs kept")
      ->default_val(10)
      ->transform(whole_number(0));
  cmd->add_option("--history-failed", o->k8s.history_failed, "kubernetes: failed Jobs kept")
      ->default_val(10)
      ->transform(whole_number(0));
  cmd->add_option("--active-deadline", o->k8s.active_deadline_s,
                  "kubernetes: activeDeadlineSeconds of each attempt's Job (0: none)")
      ->transform(whole_seconds());
  cmd->add_option("--api-patience", o->k8s.api_patience_s,
                  "kubernetes: seconds the API may fail before the run stops (its state kept for --resume)")
      ->default_val(600)
      ->transform(seconds());
  cmd->add_option("--unschedulable-after", o->k8s.unschedulable_after_s,
                  "kubernetes: seconds an attempt's pod may wait for a node before /status lists it as unschedulable")
      ->default_val(300)
      ->transform(seconds());
  cmd->add_option("--mode", o->k8s.mode,
                  "kubernetes: job-per-item (a Job per attempt) or worker-pool (one Indexed Job of --workers pods "
                  "that lease ranges over HTTP)")
      ->default_val("job-per-item")
      ->check(CLI::IsMember({"job-per-item", "worker-pool"}));
  cmd->add_option("--lease-address", o->k8s.lease_address,
                  "worker-pool: address the lease API listens on, one the pods reach (0.0.0.0: every interface)");
  cmd->add_option("--lease-port", o->k8s.lease_port, "worker-pool: port of the lease API (0: any free port)")
      ->default_val(8642)
      ->transform(tcp_port());
  cmd->add_option("--lease-url", o->k8s.lease_url,
                  "worker-pool: URL the pods reach the lease API at (default http://HOSTNAME:PORT)");
  cmd->add_option("--lease-duration", o->k8s.lease_duration_s,
                  "worker-pool: seconds a lease lasts without a heartbeat before its range goes back to the queue")
      ->default_val(60)
      ->transform(seconds());
  cmd->add_option("--heartbeat", o->k8s.heartbeat_s, "worker-pool: seconds between the workers' heartbeats")
      ->default_val(20)
      ->transform(seconds());
  cmd->callback([o] { run(*o); });
}

}  // namespace millrace::cli
