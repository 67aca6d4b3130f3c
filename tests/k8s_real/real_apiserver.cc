#include "tests/k8s_real/real_apiserver.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "cluster_adapter/kubernetes/job_view.h"
#include "data/error.h"

namespace millrace::k8s_real {

using cluster_adapter::KubeApiError;
using cluster_adapter::KubeClient;
using cluster_adapter::KubeConfig;
using nlohmann::json;

namespace {

constexpr const char* kRuleAnnotation = "kubelet.millrace.io/rule";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw data::Error(path, "cannot read (is the RealApiServer fixture started?)");
  std::stringstream text;
  text << in.rdbuf();
  std::string content = text.str();
  while (!content.empty() && (content.back() == '\n' || content.back() == ' ')) content.pop_back();
  return content;
}

// Retries `attempt` every 200 ms for up to a minute (a hang guard, not a timing assertion).
template <typename Attempt>
void wait_until(const std::string& what, Attempt attempt) {
  for (int i = 0; i < 300; ++i) {
    if (attempt()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  throw data::Error(what, "not reached within a minute");
}

}  // namespace

json documented_role(const std::string& kind) {
  const std::string path = std::string(MILLRACE_SOURCE_DIR) + "/deploy/rbac.yaml";
  for (const YAML::Node& document : YAML::LoadAllFromFile(path)) {
    if (document["kind"].as<std::string>() != kind) continue;
    json rules = json::array();
    for (const YAML::Node& rule : document["rules"]) {
      rules.push_back({{"apiGroups", rule["apiGroups"].as<std::vector<std::string>>()},
                       {"resources", rule["resources"].as<std::vector<std::string>>()},
                       {"verbs", rule["verbs"].as<std::vector<std::string>>()}});
    }
    return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", kind},
            {"metadata", {{"name", document["metadata"]["name"].as<std::string>()}}}, {"rules", rules}};
  }
  throw data::Error(path, "no " + kind + " in it");
}

RealApiServer::RealApiServer(std::string state_dir)
    : state_dir_(std::move(state_dir)),
      admin_(cluster_adapter::load_kubeconfig(state_dir_ + "/admin.kubeconfig")) {}

KubeConfig RealApiServer::config(const std::string& user, const std::string& namespace_name) const {
  KubeConfig config = cluster_adapter::load_kubeconfig(state_dir_ + "/" + user + ".kubeconfig");
  config.namespace_name = namespace_name;
  return config;
}

std::string RealApiServer::create_namespace(const std::string& prefix, const json& rule) const {
  std::string name = prefix + "-" + std::to_string(::getpid());
  admin_.call("POST", "/api/v1/namespaces",
              json{{"apiVersion", "v1"}, {"kind", "Namespace"},
                   {"metadata", {{"name", name}, {"annotations", {{kRuleAnnotation, rule.dump()}}}}}});
  wait_until("service account default in namespace " + name, [&] {
    try {
      json account = admin_.call("GET", "/api/v1/namespaces/" + name + "/serviceaccounts/default");
      return account.contains("secrets") && !account["secrets"].empty();
    } catch (const KubeApiError& error) {
      if (error.status() != 404) throw;
      return false;
    }
  });
  return name;
}

void RealApiServer::set_kubelet_rule(const std::string& namespace_name, const json& rule) const {
  std::string path = "/api/v1/namespaces/" + namespace_name;
  wait_until("the kubelet rule of namespace " + namespace_name, [&] {
    json object = admin_.call("GET", path);
    object["metadata"]["annotations"][kRuleAnnotation] = rule.dump();
    try {
      admin_.call("PUT", path, object);
      return true;
    } catch (const KubeApiError& error) {
      if (error.status() != 409) throw;
      return false;
    }
  });
}

void RealApiServer::delete_namespace(const std::string& namespace_name) const {
  admin_.call("DELETE", "/api/v1/namespaces/" + namespace_name,
              json{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}});
}

void RealApiServer::grant_nodes_to_millrace(const json& cluster_role) const {
  const std::string base = "/apis/rbac.authorization.k8s.io/v1";
  const std::string name = cluster_role["metadata"]["name"];
  admin_.call("POST", base + "/clusterroles", cluster_role);
  admin_.call("POST", base + "/clusterrolebindings",
              json{{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
                   {"metadata", {{"name", name}}},
                   {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}}},
                   {"subjects", json::array({{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"},
                                              {"name", "millrace"}}})}});
  for (const char* verb : {"get", "list", "watch"}) {
    json review = {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"},
                   {"spec", {{"user", "millrace"}, {"resourceAttributes", {{"resource", "nodes"}, {"verb", verb}}}}}};
    wait_until(std::string("user millrace allowed to ") + verb + " nodes", [&] {
      return admin_.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review)["status"].value("allowed", false);
    });
  }
}

void RealApiServer::revoke_nodes_from_millrace(const std::string& cluster_role) const {
  const std::string base = "/apis/rbac.authorization.k8s.io/v1";
  admin_.call("DELETE", base + "/clusterrolebindings/" + cluster_role);
  admin_.call("DELETE", base + "/clusterroles/" + cluster_role);
}

void RealApiServer::grant_to_millrace(const std::string& namespace_name, json role) const {
  std::string base = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + namespace_name;
  role["metadata"]["namespace"] = namespace_name;
  admin_.call("POST", base + "/roles", role);
  std::string role_name = role["metadata"]["name"];
  admin_.call("POST", base + "/rolebindings",
              json{{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
                   {"metadata", {{"name", role_name}, {"namespace", namespace_name}}},
                   {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", role_name}}},
                   {"subjects", json::array({{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"},
                                              {"name", "millrace"}}})}});
  // The authorizer learns of the binding from its informers a moment later: wait until it
  // grants every verb of the Role, so the test's first request is not refused.
  for (const json& rule : role["rules"]) {
    for (const json& resource : rule["resources"]) {
      for (const json& verb : rule["verbs"]) {
        json review = {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"},
                       {"spec", {{"user", "millrace"},
                                 {"resourceAttributes", {{"namespace", namespace_name},
                                                         {"group", rule["apiGroups"][0]},
                                                         {"resource", resource},
                                                         {"verb", verb}}}}}};
        wait_until("user millrace allowed to " + verb.get<std::string>() + " " + resource.get<std::string>(), [&] {
          json answer = admin_.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review);
          return answer["status"].value("allowed", false);
        });
      }
    }
  }
}

void RealApiServer::compact_etcd(const std::string& namespace_name) const {
  // A watch from resourceVersion R starts at etcd revision R + 1, so the compaction has to pass
  // R + 1 for every R seen before this call: two writes, compacted at the second.
  std::string path = "/api/v1/namespaces/" + namespace_name + "/configmaps";
  std::string revision;
  for (int i = 0; i < 2; ++i) {
    json written = admin_.call("POST", path, json{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                                  {"metadata", {{"generateName", "compaction-"}}}});
    revision = written["metadata"]["resourceVersion"];
  }
  std::string command = "ETCDCTL_API=3 etcdctl --endpoints " + read_file(state_dir_ + "/etcd.endpoint") +
                        " compact " + revision + " >/dev/null";
  if (std::system(command.c_str()) != 0) throw data::Error(command, "etcd compaction failed");
}

JobCensus::JobCensus(const KubeClient& client, const std::string& namespace_name, const std::string& label_selector)
    : client_(client),
      path_("/apis/batch/v1/namespaces/" + namespace_name + "/jobs?labelSelector=" +
            KubeClient::query_escape(label_selector)) {
  json list = client_.call("GET", path_);
  for (const json& job : list["items"]) apply("ADDED", job);
  thread_ = std::jthread([this, rv = list["metadata"]["resourceVersion"].get<std::string>()](std::stop_token stop) {
    follow(stop, rv);
  });
}

int JobCensus::unfinished() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(unfinished_.size());
}

std::string JobCensus::problem() const {
  std::lock_guard lock(mutex_);
  return problem_;
}

void JobCensus::follow(std::stop_token stop, std::string resource_version) {
  std::string error_body;
  int status = 0;
  try {
    status = client_.stream(path_ + "&watch=1&timeoutSeconds=3600&resourceVersion=" + resource_version,
                            [&](std::string_view line) {
                              json event = json::parse(line);
                              std::string type = event["type"];
                              if (type == "ERROR") {
                                std::lock_guard lock(mutex_);
                                problem_ = "ERROR event in the census stream: " + event["object"].dump();
                                return;
                              }
                              apply(type, event["object"]);
                            },
                            stop, &error_body);
  } catch (const std::exception& error) {
    std::lock_guard lock(mutex_);
    problem_ = std::string("census stream failed: ") + error.what();
    return;
  }
  if (status == -1) return;
  std::lock_guard lock(mutex_);
  if (problem_.empty()) problem_ = "census stream ended early (HTTP " + std::to_string(status) + ") " + error_body;
}

void JobCensus::apply(const std::string& type, const json& job) {
  std::string name = job["metadata"]["name"];
  std::lock_guard lock(mutex_);
  ++events_;
  if (type == "DELETED" || cluster_adapter::view_job(job).terminal()) {
    unfinished_.erase(name);
  } else {
    unfinished_.insert(name);
  }
  if (static_cast<int>(unfinished_.size()) > max_unfinished_) max_unfinished_ = static_cast<int>(unfinished_.size());
}

}  // namespace millrace::k8s_real
