#include "cluster_adapter/kubernetes/kubernetes_kind.h"

#include <chrono>
#include <iostream>

#include "cluster_adapter/kubernetes/kubernetes_cluster.h"
#include "cluster_adapter/kubernetes/kubernetes_resume.h"
#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

// A new run is refused before anything is recorded when its API cannot be used: a server
// certificate the configured CA did not sign, refused credentials, no right to list Jobs in the
// namespace (each a KubeApiError naming the server). An API that does not answer, or answers
// with anything but a list of Jobs, is waited for up to the API patience.
void check_api_access(const KubernetesSettings& k) {
  KubeConfig config = kube_config(k);
  const auto since = std::chrono::steady_clock::now();
  const auto patience = std::chrono::microseconds(data::micros_from_seconds(k.api_patience_s));
  std::string version;
  KubeClient(config).list("/apis/batch/v1/namespaces/" + config.namespace_name + "/jobs?limit=1", version, {},
                          [&](const KubeApiError& error, data::Micros) {
                            if (std::chrono::steady_clock::now() - since >= patience) throw error;
                          });
}

// Job-per-item mode's cluster.
class KubernetesRun : public KubernetesRunBase<KubernetesCluster> {
 public:
  explicit KubernetesRun(const KubernetesSession& session) : KubernetesRunBase(session, options(session)) {
    where_ = "Jobs labelled " + std::string(kRunLabel) + "=" + dns_label(session.run_label) + " in namespace " +
             config_.namespace_name + " at " + config_.server;
  }

  // Jobs an earlier session left running: the unrecorded latest attempts are adopted, and those
  // whose attempt the store says ended (a Ctrl-C's deletes that never reached the API) are
  // deleted before anything new is created, so the cap holds.
  void add_survivors(scheduler::SchedulerSnapshot& snapshot) override {
    std::vector<ExistingJob> jobs;
    try {
      jobs = cluster_.existing_jobs(patience_);
    } catch (const KubeApiError& error) {
      throw data::Error(where_, std::string("cannot list the run's Jobs to resume: ") + error.what());
    }
    add_unrecorded_jobs(snapshot, jobs, clock_.now());
    std::vector<std::string> stale = stale_jobs(snapshot, jobs);
    if (stale.empty()) return;
    std::string names;
    for (const std::string& name : stale) {
      names += (names.empty() ? "" : ", ") + name;
      cluster_.delete_job(name);
    }
    std::cerr << "millrace: deleting " << stale.size() << " Jobs whose attempts already ended: " << names << "\n";
  }
  void reattach(const scheduler::PlannedWork& plan, const scheduler::SchedulerSnapshot& snapshot) override {
    adopt_in_flight(cluster_, plan, snapshot);
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
  static KubernetesClusterOptions options(const KubernetesSession& session) {
    const KubernetesSettings& k = session.settings;
    KubernetesClusterOptions options;
    options.run = session.run_label;
    options.max_concurrency = session.common.workers;
    options.keep_succeeded = k.history_succeeded;
    options.keep_failed = k.history_failed;
    if (k.active_deadline_s > 0) options.active_deadline_seconds = k.active_deadline_s;
    options.unschedulable_after = data::micros_from_seconds(k.unschedulable_after_s);
    return options;
  }
};

}  // namespace

KubeConfig kube_config(const KubernetesSettings& k) {
  KubeConfig config = k.in_cluster ? load_in_cluster_config() : load_kubeconfig(k.kubeconfig, k.context);
  if (!k.namespace_name.empty()) config.namespace_name = k.namespace_name;
  return config;
}

std::string api_trouble(const ApiHealthStatus& api, data::Micros now, data::Micros patience) {
  if (api.reachable || now - api.unreachable_since < patience) return "";
  return "the Kubernetes API has failed for more than " + std::to_string(patience / data::kMicrosPerSecond) + " s (" +
         api.last_error + ")";
}

std::unique_ptr<RunCluster> JobPerItemMode::open(const KubernetesSession& session) {
  return std::make_unique<KubernetesRun>(session);
}

KubernetesKind::KubernetesKind(std::vector<std::unique_ptr<KubernetesMode>> modes) : modes_(std::move(modes)) {}

void KubernetesKind::add_options(CLI::App& command, const OptionChecks& checks) {
  KubernetesSettings& k = settings_;
  command.add_option("--kubeconfig", k.kubeconfig, "kubernetes: kubeconfig file (its current context)");
  command.add_option("--context", k.context, "kubernetes: kubeconfig context instead of the current one");
  command.add_option("--namespace", k.namespace_name, "kubernetes: namespace of the Jobs (default: the context's)");
  command.add_flag("--in-cluster", k.in_cluster, "kubernetes: use the pod's service account instead of a kubeconfig");
  command.add_option("--job-template", k.job_template_path,
                     "kubernetes: batch/v1 Job manifest (JSON) with the placeholders of --command but {worker}, "
                     "and MILLRACE_* env vars");
  command.add_option("--history-succeeded", k.history_succeeded, "kubernetes: succeeded Jobs kept")
      ->default_val(10)
      ->transform(checks.whole_number(0, std::numeric_limits<int>::max()));
  command.add_option("--history-failed", k.history_failed, "kubernetes: failed Jobs kept")
      ->default_val(10)
      ->transform(checks.whole_number(0, std::numeric_limits<int>::max()));
  command.add_option("--active-deadline", k.active_deadline_s,
                     "kubernetes: activeDeadlineSeconds of each attempt's Job, whole seconds (90m, 5400; 0: none)")
      ->transform(checks.whole_seconds(checks.max_duration));
  command.add_option("--api-patience", k.api_patience_s,
                     "kubernetes: seconds the API may fail before the run stops (its state kept for --resume)")
      ->default_val(600)
      ->transform(checks.seconds(checks.max_duration));
  command.add_option("--unschedulable-after", k.unschedulable_after_s,
                     "kubernetes: seconds an attempt's pod may wait for a node before /status lists it as "
                     "unschedulable")
      ->default_val(300)
      ->transform(checks.seconds(checks.max_duration));
  std::string help = "kubernetes: ";
  std::vector<std::string> names;
  for (const std::unique_ptr<KubernetesMode>& m : modes_) {
    help += (names.empty() ? "" : " or ") + m->name() + " (" + m->summary() + ")";
    names.push_back(m->name());
  }
  command.add_option("--mode", k.mode, help)->default_val(modes_.front()->name())->check(CLI::IsMember(names));
  for (const std::unique_ptr<KubernetesMode>& m : modes_) m->add_options(command, checks);
}

KubernetesMode& KubernetesKind::mode() const {
  for (const std::unique_ptr<KubernetesMode>& m : modes_) {
    if (m->name() == settings_.mode) return *m;
  }
  throw data::Error("--mode " + settings_.mode, "is not a mode of --cluster kubernetes");
}

void KubernetesKind::check(RunCommon& common) {
  KubernetesSettings& k = settings_;
  if (k.job_template_path.empty()) throw data::Error("millrace run", "--cluster kubernetes needs --job-template");
  if (k.kubeconfig.empty() && !k.in_cluster) {
    throw data::Error("millrace run", "--cluster kubernetes needs --kubeconfig FILE or --in-cluster");
  }
  k.job_template = JobTemplate::load(k.job_template_path).manifest();
  mode().check(k, common);
  check_api_access(k);
}

void KubernetesKind::refuse_elsewhere() const {
  if (settings_.mode != modes_.front()->name()) {
    throw data::Error("--mode " + settings_.mode, "applies to --cluster kubernetes only");
  }
}

void KubernetesKind::save(nlohmann::json& p) const {
  const KubernetesSettings& k = settings_;
  p["kubeconfig"] = k.kubeconfig;
  p["context"] = k.context;
  p["namespace"] = k.namespace_name;
  p["in_cluster"] = k.in_cluster;
  p["job_template"] = k.job_template;
  p["history_succeeded"] = k.history_succeeded;
  p["history_failed"] = k.history_failed;
  // Durations are stored in microseconds (stores of schema 6 and older: migration 7).
  p["active_deadline_us"] = k.active_deadline_s * data::kMicrosPerSecond;
  p["api_patience_us"] = data::micros_from_seconds(k.api_patience_s);
  p["unschedulable_after_us"] = data::micros_from_seconds(k.unschedulable_after_s);
  p["mode"] = k.mode;
  for (const std::unique_ptr<KubernetesMode>& m : modes_) m->save(p);
}

void KubernetesKind::load(const nlohmann::json& p) {
  KubernetesSettings& k = settings_;
  // Credentials may have moved since: a --kubeconfig / --context given now wins.
  if (k.kubeconfig.empty()) k.kubeconfig = p.at("kubeconfig").get<std::string>();
  if (k.context.empty()) k.context = p.at("context").get<std::string>();
  k.namespace_name = p.at("namespace").get<std::string>();
  k.in_cluster = p.at("in_cluster").get<bool>();
  k.job_template = p.at("job_template");
  k.history_succeeded = p.at("history_succeeded").get<int>();
  k.history_failed = p.at("history_failed").get<int>();
  k.active_deadline_s = static_cast<int>(p.at("active_deadline_us").get<data::Micros>() / data::kMicrosPerSecond);
  k.api_patience_s = seconds_at(p, "api_patience_us", k.api_patience_s);
  // Runs recorded before these options existed get their defaults.
  k.unschedulable_after_s = seconds_at(p, "unschedulable_after_us", k.unschedulable_after_s);
  k.mode = p.value("mode", k.mode);
  for (const std::unique_ptr<KubernetesMode>& m : modes_) m->load(p);
}

std::unique_ptr<RunCluster> KubernetesKind::open(const ClusterSession& session) {
  // Jobs are named and labelled after the run's name and id.
  KubernetesSession k8s{settings_, session.common, session.run.name + "-" + std::to_string(session.run.id),
                        "run " + std::to_string(session.run.id), session.clock};
  return mode().open(k8s);
}

double seconds_at(const nlohmann::json& parameters, const char* key, double fallback) {
  return parameters.contains(key) ? data::seconds_from_micros(parameters.at(key).get<data::Micros>()) : fallback;
}

}  // namespace millrace::cluster_adapter
