// `millrace run --cluster kubernetes`: batch/v1 Jobs of one namespace, reached through a
// kubeconfig or the pod's service account, made from the run's Job template. How ranges become
// Jobs is the mode (--mode): job-per-item (here: a Job per attempt) or another mode handed to
// the kind (kubernetes/worker_pool/). What every mode shares is here: the API's access check and
// patience, and the cluster's own state in GET /status and /metrics (KubernetesRunBase).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/job_template.h"
#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/kubernetes/kube_config.h"
#include "cluster_adapter/kubernetes/kubernetes_status.h"
#include "cluster_adapter/kubernetes/node_arrivals.h"
#include "cluster_adapter/realtime/api_health.h"
#include "cluster_adapter/realtime/cluster_kind.h"

namespace millrace::cluster_adapter {

// The options every mode shares.
struct KubernetesSettings {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;  // empty: the kubeconfig's or the service account's
  bool in_cluster = false;
  std::string job_template_path;
  nlohmann::json job_template;  // the manifest, kept with the run
  int history_succeeded = 10;
  int history_failed = 10;
  int active_deadline_s = 0;  // 0: none
  double api_patience_s = 600;
  double unschedulable_after_s = 300;
  std::string mode = "job-per-item";
};

// The kubeconfig (or in-cluster configuration) of the settings, in their namespace.
KubeConfig kube_config(const KubernetesSettings& settings);

// Why a Kubernetes run stops: its API has failed for longer than the patience (empty: it has not).
std::string api_trouble(const ApiHealthStatus& api, data::Micros now, data::Micros patience);

// What a mode needs to build its cluster for a session: the run's label (Jobs are named and
// labelled after the run's name and id) and the name of the run in messages.
struct KubernetesSession {
  const KubernetesSettings& settings;
  const RunCommon& common;
  std::string run_label;
  std::string input;
  const scheduler::Clock& clock;
};

// How ranges become Jobs.
class KubernetesMode {
 public:
  virtual ~KubernetesMode() = default;
  // The --mode value and what it does, for the option's help.
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // The mode's own options (kept in every Kubernetes run's parameters, whatever its mode).
  virtual void add_options(CLI::App&, const OptionChecks&) {}
  virtual void check(const KubernetesSettings&, RunCommon&) {}
  virtual void save(nlohmann::json&) const {}
  virtual void load(const nlohmann::json&) {}
  virtual std::unique_ptr<RunCluster> open(const KubernetesSession& session) = 0;
};

class KubernetesKind : public ClusterKind {
 public:
  // `modes`: job-per-item first (the default), then the others.
  explicit KubernetesKind(std::vector<std::unique_ptr<KubernetesMode>> modes);
  std::string name() const override { return "kubernetes"; }
  std::string default_policy() const override { return "job-per-item"; }
  void add_options(CLI::App& command, const OptionChecks& checks) override;
  void check(RunCommon& common) override;
  void refuse_elsewhere() const override;
  std::string adopts_leftovers() const override {
    return "a resumed Kubernetes run adopts the Jobs its dead session left and follows them to their end (the "
           "Kubernetes form of wait); they are not ended";
  }
  // Credentials may have moved since the run started.
  std::vector<std::string> resume_options() const override { return {"--kubeconfig", "--context"}; }
  void save(nlohmann::json& parameters) const override;
  void load(const nlohmann::json& parameters) override;
  std::unique_ptr<RunCluster> open(const ClusterSession& session) override;

 private:
  KubernetesMode& mode() const;

  KubernetesSettings settings_;
  std::vector<std::unique_ptr<KubernetesMode>> modes_;
};

// Job-per-item mode: a Job per attempt, at most --workers unfinished at once.
class JobPerItemMode : public KubernetesMode {
 public:
  std::string name() const override { return "job-per-item"; }
  std::string summary() const override { return "a Job per attempt"; }
  std::unique_ptr<RunCluster> open(const KubernetesSession& session) override;
};

// What every mode's cluster shares: the cluster made from the run's kubeconfig and Job
// template, the API's patience, and the cluster's own state in GET /status and /metrics.
template <typename Cluster>
class KubernetesRunBase : public RunCluster {
 public:
  template <typename ClusterOptions>
  KubernetesRunBase(const KubernetesSession& session, ClusterOptions options)
      : config_(kube_config(session.settings)),
        cluster_(KubeClient(config_),
                 JobTemplate::parse(session.settings.job_template.dump(), session.input + " job template"),
                 std::move(options), session.clock),
        clock_(session.clock),
        patience_(data::micros_from_seconds(session.settings.api_patience_s)),
        nodes_(KubeClient(config_), BackoffPolicy{}, session.clock) {}
  PolledCluster& cluster() override { return cluster_; }
  std::optional<NodeArrivalNews> node_arrival_news() override { return nodes_.take_news(); }
  std::string where() const override { return where_; }
  nlohmann::json status_json(data::Micros now) const override { return to_json(cluster_.status(), now); }
  std::string metrics_text(data::Micros now) const override {
    PrometheusWriter out;
    write_metrics(out, cluster_.status(), now);
    return out.text();
  }

 protected:
  static constexpr data::Micros kFlushWait = 30 * data::kMicrosPerSecond;

  KubeConfig config_;
  Cluster cluster_;
  const scheduler::Clock& clock_;
  data::Micros patience_;
  std::string where_;
  NodeArrivalWatch nodes_;
};

// A duration setting stored in microseconds under `key`, in seconds; `fallback` when a run was
// recorded before the setting existed.
double seconds_at(const nlohmann::json& parameters, const char* key, double fallback);

}  // namespace millrace::cluster_adapter
