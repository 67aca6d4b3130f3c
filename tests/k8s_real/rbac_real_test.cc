// The RBAC Role the README documents for the Kubernetes adapter, against a real kube-apiserver
// v1.20 with RBAC authorization (RealApiServer fixture): bound to the user `millrace`, it is
// enough for a job-per-item run (create, list, watch and delete Jobs; list and watch pods); with
// any one of the verbs the adapter uses removed, the run shows a clear message naming the verb
// and the resource, as the API server's Forbidden Status gives them.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "cluster_adapter/job_template.h"
#include "cluster_adapter/kubernetes_cluster.h"
#include "scheduler/scheduler.h"
#include "tests/cluster_adapter/k8s_test_support.h"
#include "tests/k8s_real/real_apiserver.h"

namespace millrace::k8s_real {
namespace {

using cluster_adapter::KubeClient;
using cluster_adapter::KubernetesCluster;
using nlohmann::json;

// The Role of README.md's "Run on Kubernetes" section.
json documented_role() {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"},
          {"metadata", {{"name", "millrace"}}},
          {"rules", json::array({{{"apiGroups", {"batch"}}, {"resources", {"jobs"}},
                                  {"verbs", {"create", "get", "list", "watch", "delete"}}},
                                 {{"apiGroups", {""}}, {"resources", {"pods"}},
                                  {"verbs", {"get", "list", "watch"}}}})}};
}

json role_without(const std::string& resource, const std::string& verb) {
  json role = documented_role();
  for (json& rule : role["rules"]) {
    if (rule["resources"][0] != resource) continue;
    json verbs = json::array();
    for (const json& v : rule["verbs"]) {
      if (v != verb) verbs.push_back(v);
    }
    rule["verbs"] = verbs;
  }
  return role;
}

struct RunOutcome {
  bool finished = false;
  bool run_failed = false;
  std::string messages;  // every API problem and attempt failure reason seen, one per line
};

// A short job-per-item run as the user `millrace`: 6 ranges, at most 2 in flight, no finished
// Job kept (so Jobs are deleted too). Stops when the run is finished or `expected` shows up.
RunOutcome run_as_millrace(const RealApiServer& server, const std::string& ns, const std::string& expected) {
  cluster_adapter::KubernetesClusterOptions options;
  options.run = "rbac";
  options.max_concurrency = 2;
  options.keep_succeeded = 0;
  options.keep_failed = 0;
  options.backoff = cluster_adapter::fast_backoff();
  cluster_adapter::SteadyTestClock clock;
  KubernetesCluster cluster(KubeClient(server.config("millrace", ns), cluster_adapter::fast_backoff()),
                            cluster_adapter::JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
      "spec": {"template": {"spec": {"automountServiceAccountToken": false,
        "containers": [{"name": "worker", "image": "catchup:1", "args": ["{first}", "{count}"]}]}}}})",
                                                                "rbac test template"),
                            options, clock);
  std::vector<data::WorkItem> items;
  for (int i = 0; i < 6; ++i) {
    data::WorkItem item;
    item.id = "r" + std::to_string(i);
    item.range = data::Range{i * 10, 10};
    items.push_back(item);
  }
  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.policy = "job-per-item";
  scheduler_options.params.max_in_flight = 2;
  scheduler_options.retry.max_attempts = 1;
  scheduler::Scheduler scheduler(items, scheduler_options, cluster, clock);
  RunOutcome outcome;
  auto note = [&](const std::string& message) {
    if (!message.empty() && outcome.messages.find(message) == std::string::npos) outcome.messages += message + "\n";
  };
  scheduler.set_observer([&](scheduler::AttemptHandle, const data::Attempt& attempt) { note(attempt.failure_reason); });
  scheduler.start();
  auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!scheduler.finished() && std::chrono::steady_clock::now() < guard &&
         (expected.empty() || outcome.messages.find(expected) == std::string::npos)) {
    cluster.poll(20 * data::kMicrosPerMilli);
    note(cluster.status().api_problem);
  }
  // With no Job kept, the last deletions follow the end of the run.
  for (int i = 0; i < 20 && scheduler.finished() && expected.empty(); ++i) {
    cluster.poll(20 * data::kMicrosPerMilli);
    note(cluster.status().api_problem);
  }
  outcome.finished = scheduler.finished();
  outcome.run_failed = scheduler.run_failed();
  return outcome;
}

TEST(RealApiServerRbac, DocumentedRoleIsEnoughForAJobPerItemRun) {
  RealApiServer server(MILLRACE_K8S_STATE_DIR);
  std::string ns = server.create_namespace("rbac-full", json::object());
  server.grant_to_millrace(ns, documented_role());
  RunOutcome outcome = run_as_millrace(server, ns, "");
  EXPECT_TRUE(outcome.finished);
  EXPECT_FALSE(outcome.run_failed);
  EXPECT_EQ(outcome.messages.find("forbidden"), std::string::npos) << outcome.messages;
  server.delete_namespace(ns);
}

struct MissingVerb {
  std::string resource;
  std::string verb;
};

class RealApiServerRbacMissingVerb : public ::testing::TestWithParam<MissingVerb> {};

TEST_P(RealApiServerRbacMissingVerb, RunShowsAMessageNamingTheVerbAndResource) {
  const MissingVerb& missing = GetParam();
  RealApiServer server(MILLRACE_K8S_STATE_DIR);
  std::string ns = server.create_namespace("rbac-no-" + missing.verb + "-" + missing.resource, json::object());
  server.grant_to_millrace(ns, role_without(missing.resource, missing.verb));
  std::string expected = "cannot " + missing.verb + " resource \"" + missing.resource + "\"";
  RunOutcome outcome = run_as_millrace(server, ns, expected);
  EXPECT_NE(outcome.messages.find(expected), std::string::npos) << "messages seen:\n" << outcome.messages;
  server.delete_namespace(ns);
}

INSTANTIATE_TEST_SUITE_P(
    VerbsTheAdapterUses, RealApiServerRbacMissingVerb,
    ::testing::Values(MissingVerb{"jobs", "create"}, MissingVerb{"jobs", "list"}, MissingVerb{"jobs", "watch"},
                      MissingVerb{"jobs", "delete"}, MissingVerb{"pods", "list"}, MissingVerb{"pods", "watch"}),
    [](const ::testing::TestParamInfo<MissingVerb>& info) { return info.param.resource + "_" + info.param.verb; });

}  // namespace
}  // namespace millrace::k8s_real
