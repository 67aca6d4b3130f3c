// What the RealApiServer tests need around the control plane that control-plane.sh started
// (its state folder is MILLRACE_K8S_STATE_DIR): an admin client, a namespace per test with the
// fake kubelet's rule, RBAC objects for the restricted user `millrace`, etcd compaction (to
// make a watch from an older resourceVersion end with 410), and a census of a run's Jobs kept
// from the API server's own watch stream, to check the concurrency cap at every moment.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/kubernetes/kube_config.h"

namespace millrace::k8s_real {

// The Role (or, by `kind`, the ClusterRole) of deploy/rbac.yaml, the one README.md's "Run on
// Kubernetes" section shows (tests/cluster_adapter/kubernetes/deploy_manifests_test.cc keeps the
// two equal), as a JSON object.
nlohmann::json documented_role(const std::string& kind = "Role");

class RealApiServer {
 public:
  explicit RealApiServer(std::string state_dir);

  // A kubeconfig of the fixture (admin: group system:masters; millrace: only what a test
  // binds to it), pointed at `namespace_name`.
  cluster_adapter::KubeConfig config(const std::string& user, const std::string& namespace_name) const;
  const cluster_adapter::KubeClient& admin() const { return admin_; }

  // Creates namespace `prefix`-<pid> with the fake kubelet's `rule` (see fake_kubelet.py) and
  // waits until its default service account can admit pods. Returns the name.
  std::string create_namespace(const std::string& prefix, const nlohmann::json& rule) const;
  void set_kubelet_rule(const std::string& namespace_name, const nlohmann::json& rule) const;
  void delete_namespace(const std::string& namespace_name) const;

  // Binds `role` (a rbac.authorization.k8s.io/v1 Role object) to the user `millrace`; returns once
  // the API server grants each of its verbs.
  void grant_to_millrace(const std::string& namespace_name, nlohmann::json role) const;
  // Binds `cluster_role` (a ClusterRole on nodes) to the user `millrace` cluster-wide; returns once
  // get, list and watch of nodes are granted. Revoking deletes the binding and the role.
  void grant_nodes_to_millrace(const nlohmann::json& cluster_role) const;
  void revoke_nodes_from_millrace(const std::string& cluster_role) const;

  // Writes two objects (bumping etcd's revision) and compacts etcd at the second one: every
  // watch that starts afterwards from an older resourceVersion gets 410 Gone in its stream.
  void compact_etcd(const std::string& namespace_name) const;

 private:
  std::string state_dir_;
  cluster_adapter::KubeClient admin_;
};

// Follows the Jobs of a run by the API server's watch stream (one stream, never restarted, so
// no event is missed) and keeps the largest number of unfinished Jobs (no Complete or Failed
// condition yet) that ever existed at once.
class JobCensus {
 public:
  JobCensus(const cluster_adapter::KubeClient& client, const std::string& namespace_name,
            const std::string& label_selector);
  JobCensus(const JobCensus&) = delete;
  JobCensus& operator=(const JobCensus&) = delete;

  int max_unfinished() const { return max_unfinished_; }
  int unfinished() const;
  std::uint64_t events() const { return events_; }
  // Empty while the stream is intact; otherwise what broke it (the census is then incomplete).
  std::string problem() const;

 private:
  void follow(std::stop_token stop, std::string resource_version);
  void apply(const std::string& type, const nlohmann::json& job);

  const cluster_adapter::KubeClient& client_;
  std::string path_;
  mutable std::mutex mutex_;
  std::set<std::string> unfinished_;
  std::string problem_;
  std::atomic<int> max_unfinished_{0};
  std::atomic<std::uint64_t> events_{0};
  std::jthread thread_;
};

}  // namespace millrace::k8s_real
