// The RBAC Role the README documents for the Kubernetes adapter, against a real kube-apiserver
// v1.20 with RBAC authorization (RealApiServer fixture): bound to the user `millrace`, it is
// enough for a job-per-item run (create, list, watch and delete Jobs; list and watch pods), and,
// but for a worker pool's pod deletes, it grants nothing such a run does not use: with any one of
// its verbs removed, the run shows a clear message naming the verb and the resource, as the API
// server's Forbidden Status gives them.
#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "cluster_adapter/kubernetes/job_template.h"
#include "cluster_adapter/kubernetes/kubernetes_cluster.h"
#include "scheduler/scheduler.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/k8s_real/real_apiserver.h"

namespace millrace::k8s_real {
namespace {

using cluster_adapter::KubeClient;
using cluster_adapter::KubernetesCluster;
using nlohmann::json;

struct MissingVerb {
  std::string resource;
  std::string verb;
};

// Every verb the documented Role grants, each on its own: each one must be needed by a
// job-per-item run. But for deleting pods: only a worker pool does that (a lost worker's pod, so
// that its Job makes a new one); pool_worker_check.sh shows it done under this Role, and the loopback
// WorkerPoolOnLoopbackServer.OnlyARunningPodOfThePool... test a refused delete told.
std::vector<MissingVerb> documented_verbs() {
  std::vector<MissingVerb> verbs;
  const json role = documented_role();
  for (const json& rule : role["rules"]) {
    for (const json& resource : rule["resources"]) {
      for (const json& verb : rule["verbs"]) {
        if (resource == "pods" && verb == "delete") continue;
        verbs.push_back({resource.get<std::string>(), verb.get<std::string>()});
      }
    }
  }
  return verbs;
}

json role_without(const MissingVerb& missing) {
  json role = documented_role();
  for (json& rule : role["rules"]) {
    json verbs = json::array();
    for (const json& verb : rule["verbs"]) {
      if (verb != missing.verb || rule["resources"] != json::array({missing.resource})) verbs.push_back(verb);
    }
    rule["verbs"] = verbs;
  }
  return role;
}

struct RunOutcome {
  bool finished = false;
  bool run_failed = false;
  int succeeded = 0;
  std::size_t jobs_left = 0;  // the run's Jobs still in the namespace at the end
  std::string messages;       // every API problem and attempt failure reason seen, one per line
};

// A short job-per-item run as the user `millrace`: 6 ranges, at most 2 in flight, no finished
// Job kept (so Jobs are deleted too). Stops when `expected` shows up, or else once the run is
// finished and its Jobs are deleted.
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
    item.id = "r";
    item.id += std::to_string(i);
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
  scheduler.set_observer([&](scheduler::AttemptHandle, const data::Attempt& attempt) {
    note(attempt.failure_reason);
    outcome.succeeded += attempt.outcome == data::Outcome::kSucceeded;
  });
  auto jobs_left = [&] {
    return server.admin()
        .call("GET", "/apis/batch/v1/namespaces/" + ns + "/jobs?labelSelector=" +
                         KubeClient::query_escape(std::string(cluster_adapter::kRunLabel) + "=rbac"))["items"]
        .size();
  };
  scheduler.start();
  auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // a hang guard
  while (std::chrono::steady_clock::now() < guard) {
    cluster.poll(20 * data::kMicrosPerMilli);
    note(cluster.status().api.last_error);
    if (!expected.empty() && outcome.messages.find(expected) != std::string::npos) break;
    // With no Job kept, the run's last deletions follow its end.
    if (scheduler.finished() && (outcome.jobs_left = jobs_left()) == 0) break;
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
  EXPECT_EQ(outcome.succeeded, 6);
  EXPECT_EQ(outcome.jobs_left, 0u);
  EXPECT_EQ(outcome.messages, "");
  server.delete_namespace(ns);
}

void PrintTo(const MissingVerb& missing, std::ostream* out) { *out << missing.verb << " " << missing.resource; }

class DocumentedRoleWithoutOneVerb : public ::testing::TestWithParam<MissingVerb> {};

TEST_P(DocumentedRoleWithoutOneVerb, RunShowsAMessageNamingTheVerbAndResource) {
  const MissingVerb& missing = GetParam();
  RealApiServer server(MILLRACE_K8S_STATE_DIR);
  std::string ns = server.create_namespace("rbac-no-" + missing.verb + "-" + missing.resource, json::object());
  server.grant_to_millrace(ns, role_without(missing));
  std::string expected = "cannot " + missing.verb + " resource \"" + missing.resource + "\"";
  RunOutcome outcome = run_as_millrace(server, ns, expected);
  EXPECT_NE(outcome.messages.find(expected), std::string::npos) << "messages seen:\n" << outcome.messages;
  server.delete_namespace(ns);
}

INSTANTIATE_TEST_SUITE_P(
    RealApiServerRbac, DocumentedRoleWithoutOneVerb,
    ::testing::ValuesIn(documented_verbs()),
    [](const ::testing::TestParamInfo<MissingVerb>& info) { return info.param.resource + "_" + info.param.verb; });

}  // namespace
}  // namespace millrace::k8s_real
