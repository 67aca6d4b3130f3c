// End-to-end: `millrace run --cluster kubernetes` against the loopback Kubernetes API test
// server: the test starts the server, writes a kubeconfig pointing to it and runs the millrace
// binary with the documented Job template (deploy/job-template.json), then judges the run by the
// trace store and by the server's own record. Also: a SIGINT deletes the unfinished Jobs; a SIGKILL mid-run followed by --resume
// re-attaches to the Jobs in the cluster; an API failing past --api-patience stops the run with
// its state kept; an unknown cluster name is refused before anything is recorded.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "data/trace_store.h"
#include "tests/cli/cli_process.h"
#include "tests/cluster_adapter/fake_apiserver.h"

namespace millrace {
namespace {

using cli_test::CliResult;
using cluster_adapter::FakeApiServer;
using cluster_adapter::PodPlan;

// Every pod waits a little for a node, then runs `run_ms`.
cluster_adapter::FakeApiServerOptions pods_running(int run_ms) {
  return {[run_ms](const nlohmann::json&) {
            return PodPlan{2 * data::kMicrosPerMilli, run_ms * data::kMicrosPerMilli, 0};
          },
          1 * data::kMicrosPerMilli};
}

class FakeApiServerRunKubernetes : public cli_test::CliRunTest {
 protected:
  std::string kubeconfig_for(const FakeApiServer& server) {
    std::string path = (dir / "kubeconfig").string();
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                           "clusters:\n- name: loopback\n  cluster: {server: "
                        << server.url()
                        << "}\n"
                           "contexts:\n- name: test\n  context: {cluster: loopback, user: tester, namespace: batch-work}\n"
                           "users:\n- name: tester\n  user: {token: test-token}\n";
    return path;
  }

  std::vector<std::string> run_args(const FakeApiServer& server, int ranges, int workers) {
    return {"run",        "--cluster",      "kubernetes",
            "--store",    store,            "--kubeconfig",
            kubeconfig_for(server),         "--job-template",
            std::string(MILLRACE_SOURCE_DIR) + "/deploy/job-template.json",
            "--span",     "0:" + std::to_string(ranges * 100 - 1),
            "--partitioner", "uniform",     "--ranges",
            std::to_string(ranges),         "--workers",
            std::to_string(workers),        "--name",
            "catchup"};
  }
};

TEST_F(FakeApiServerRunKubernetes, RunCreatesOneJobPerRangeWithinTheCapAndRecordsEachSuccessOnce) {
  FakeApiServer server(pods_running(20));
  CliResult result = run(run_args(server, 12, 3));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("run 1: 12/12 items succeeded"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("millrace.io/run=catchup-1 in namespace batch-work at " + server.url()), std::string::npos)
      << result.err;

  data::TraceStore trace = data::TraceStore::open(store);
  EXPECT_EQ(trace.run(1).policy, "job-per-item");
  EXPECT_GT(trace.run(1).ended, 0);
  std::map<std::string, int> succeeded = successes();
  EXPECT_EQ(succeeded.size(), 12u);
  for (const auto& [item, count] : succeeded) EXPECT_EQ(count, 1) << item;
  for (const data::Attempt& a : trace.attempts(1)) {
    EXPECT_EQ(a.outcome, data::Outcome::kSucceeded);
    EXPECT_NE(a.worker.find("catchup-1-"), std::string::npos) << a.worker;  // its pod
  }
  cluster_adapter::FakeApiRecord record = server.record();
  EXPECT_EQ(record.jobs_created, 12);
  EXPECT_LE(record.max_unfinished_jobs, 3);
  EXPECT_EQ(record.deletes_without_policy, 0);
  for (const auto& job : server.objects("jobs")) {
    EXPECT_EQ(job["metadata"]["namespace"], "batch-work");
    EXPECT_EQ(job["spec"]["template"]["spec"]["containers"][0]["image"], "registry.example.com/catchup:1.0");
  }
}

TEST_F(FakeApiServerRunKubernetes, SigkillThenResumeReattachesToTheJobsInTheClusterWithoutCreatingThemAgain) {
  FakeApiServer server(pods_running(300));
  pid_t pid = start(run_args(server, 8, 4));
  for (int i = 0; i < 3000 && (successes().size() < 2 || server.record().jobs_created < 6); ++i) usleep(10'000);
  kill(pid, SIGKILL);
  ASSERT_EQ(finish(pid).exit_code, 128 + SIGKILL);
  std::size_t recorded = successes().size();
  ASSERT_GE(recorded, 2u);
  ASSERT_LT(recorded, 8u);
  int created_before = server.record().jobs_created;

  CliResult resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::map<std::string, int> after = successes();
  EXPECT_EQ(after.size(), 8u);
  for (const auto& [item, count] : after) EXPECT_EQ(count, 1) << item;
  EXPECT_EQ(server.record().jobs_created, 8) << created_before << " created before the kill";
  EXPECT_EQ(server.record().create_conflicts, 0);
}

TEST_F(FakeApiServerRunKubernetes, SigintDeletesTheUnfinishedJobsAndRecordsOnlyThemAsCancelled) {
  FakeApiServer server(pods_running(60'000));
  pid_t pid = start(run_args(server, 5, 2));
  for (int i = 0; i < 3000 && server.record().jobs_created < 2; ++i) usleep(10'000);
  kill(pid, SIGINT);
  CliResult result = finish(pid);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("interrupted with 5 items not succeeded"), std::string::npos) << result.err;
  std::vector<data::Attempt> attempts = data::TraceStore::open(store).attempts(1);
  ASSERT_EQ(attempts.size(), 2u);
  for (const data::Attempt& a : attempts) EXPECT_EQ(a.outcome, data::Outcome::kCancelled) << a.item_id;
  EXPECT_EQ(server.record().jobs_created, 2);
  EXPECT_TRUE(server.objects("jobs").empty());
  EXPECT_EQ(server.record().deletes_without_policy, 0);
}

TEST_F(FakeApiServerRunKubernetes, ApiFailingPastThePatienceStopsTheRunWithItsRecordsKeptAndResumeFinishesIt) {
  FakeApiServer server(pods_running(100));
  std::vector<std::string> args = run_args(server, 10, 2);
  args.insert(args.end(), {"--api-patience", "1"});
  pid_t pid = start(args);
  for (int i = 0; i < 3000 && successes().size() < 2; ++i) usleep(10'000);
  server.inject_errors(1'000'000, 500);
  CliResult result = finish(pid);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: run 1: the Kubernetes API has failed for more than 1 s"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("--resume 1"), std::string::npos) << result.err;
  std::vector<data::Attempt> kept = data::TraceStore::open(store).attempts(1);
  ASSERT_GE(kept.size(), 2u);
  for (const data::Attempt& a : kept) EXPECT_EQ(a.outcome, data::Outcome::kSucceeded) << a.item_id;

  server.inject_errors(0, 500);
  CliResult resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::vector<data::Attempt> all = data::TraceStore::open(store).attempts(1);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(all[i].item_id, kept[i].item_id);
    EXPECT_EQ(all[i].end, kept[i].end);
  }
  std::map<std::string, int> after = successes();
  EXPECT_EQ(after.size(), 10u);
  for (const auto& [item, count] : after) EXPECT_EQ(count, 1) << item;
  EXPECT_EQ(server.record().jobs_created, 10);
}

TEST_F(FakeApiServerRunKubernetes, UnreachableApiAtResumeIsReportedWithTheRunLeftAsItWas) {
  std::vector<data::Attempt> kept;
  {
    FakeApiServer server(pods_running(1000));
    std::vector<std::string> args = run_args(server, 4, 1);
    args.insert(args.end(), {"--api-patience", "1"});
    pid_t pid = start(args);
    for (int i = 0; i < 3000 && server.record().jobs_created < 1; ++i) usleep(10'000);
    kill(pid, SIGKILL);
    finish(pid);
    kept = data::TraceStore::open(store).attempts(1);
  }  // the API server is gone
  CliResult resumed = run({"run", "--store", store, "--resume", "1"});
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_NE(resumed.err.find("cannot list the run's Jobs to resume"), std::string::npos) << resumed.err;
  EXPECT_EQ(data::TraceStore::open(store).attempts(1).size(), kept.size());
}

TEST_F(FakeApiServerRunKubernetes, UnknownClusterNameIsAnErrorListingTheKnownOnes) {
  CliResult result = run({"run", "--cluster", "slurm", "--store", store, "--span", "0:99", "--partitioner", "uniform",
                          "--ranges", "2", "--command", "true"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: --cluster: unknown cluster 'slurm' (known: local, kubernetes)"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
}

TEST_F(FakeApiServerRunKubernetes, KubernetesRunWithoutAJobTemplateIsRefusedBeforeAnythingIsRecorded) {
  FakeApiServer server;
  std::vector<std::string> args = run_args(server, 2, 1);
  args.erase(args.begin() + 7, args.begin() + 9);  // --job-template FILE
  CliResult result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: millrace run: --cluster kubernetes needs --job-template"), std::string::npos)
      << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
}

}  // namespace
}  // namespace millrace
