// End-to-end: `millrace run --cluster kubernetes` against the loopback Kubernetes API test
// server: the test starts the server, writes a kubeconfig pointing to it and runs the millrace
// binary with the documented Job template (deploy/job-template.json), then judges the run by the
// trace store and by the server's own record. Also: a SIGINT deletes the unfinished Jobs; a SIGKILL mid-run followed by --resume
// re-attaches to the Jobs in the cluster; an API failing past --api-patience stops the run with
// its state kept; an unknown cluster name is refused before anything is recorded.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "data/trace_store.h"
#include "tests/cli/cli_process.h"
#include "tests/cluster_adapter/kubernetes/fake_apiserver.h"
#include "tests/cluster_adapter/kubernetes/test_certificates.h"
#include "tests/cluster_adapter/kubernetes/worker_pool/simulated_pool.h"

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

// Pool pods run until their simulated worker exits.
cluster_adapter::FakeApiServerOptions pool_pods() {
  return {[](const nlohmann::json&) { return PodPlan{2 * data::kMicrosPerMilli, cluster_adapter::kUntilEnded}; },
          1 * data::kMicrosPerMilli};
}

class RunKubernetesOnLoopbackServer : public cli_test::CliRunTest {
 protected:
  // A worker-pool run of the documented pool template, its lease API on loopback, plus `extra`.
  std::vector<std::string> pool_args(const FakeApiServer& server, int ranges, int workers,
                                     const std::vector<std::string>& extra) {
    std::vector<std::string> args = run_args(server, ranges, workers);
    args[8] = std::string(MILLRACE_SOURCE_DIR) + "/deploy/pool-job-template.json";
    args.insert(args.end(), {"--mode", "worker-pool", "--lease-address", "127.0.0.1"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // A run ended by Ctrl-C: exit 1 with `items` not succeeded, and `cancelled` attempts recorded,
  // every one of them cancelled.
  void expect_interrupted(const CliResult& result, int items, std::size_t cancelled) {
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("interrupted with " + std::to_string(items) + " items not succeeded"), std::string::npos)
        << result.err;
    std::vector<data::Attempt> attempts = data::TraceStore::open(store).attempts(1);
    EXPECT_EQ(attempts.size(), cancelled);
    for (const data::Attempt& a : attempts) EXPECT_EQ(a.outcome, data::Outcome::kCancelled) << a.item_id;
  }

  // The nodes a run of 8 items 2 at a time on `server` records, `cloud` changing the cluster's
  // nodes (on a thread of its own) once the run's Jobs and its node watch are going.
  std::vector<data::NodeArrival> nodes_recorded_while(FakeApiServer& server, const std::function<void()>& cloud) {
    std::thread changes([&] {
      for (int i = 0; i < 3000 && (server.objects("jobs").empty() || server.record().lists < 3); ++i) usleep(10'000);
      cloud();
    });
    CliResult result = run(run_args(server, 8, 2));
    changes.join();
    EXPECT_EQ(result.exit_code, 0) << result.err;
    data::TraceStore trace = data::TraceStore::open(store);
    EXPECT_EQ(trace.node_arrivals_unrecorded(1), "");
    return trace.node_arrivals(1);
  }

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

  // The status server's port, once the run printed it (0 if it did not within ~30 s).
  int status_port() {
    const std::string marker = "status on http://127.0.0.1:";
    for (int i = 0; i < 3000; ++i, usleep(10'000)) {
      std::string err = cli_test::read_text(dir / "stderr");
      // The whole line: stderr may hold its first part before the port is written.
      if (auto at = err.find(marker); at != std::string::npos && err.find('\n', at) != std::string::npos) {
        return std::atoi(err.c_str() + at + marker.size());
      }
    }
    return 0;
  }

  std::vector<std::string> run_args(const FakeApiServer& server, int ranges, int workers) {
    return {"run",        "--cluster",      "kubernetes",
            "--store",    store,            "--kubeconfig",
            kubeconfig_for(server),         "--job-template",
            std::string(MILLRACE_SOURCE_DIR) + "/deploy/job-template.json",
            "--span",     "0:" + std::to_string(ranges * 100 - 1),
            "--partitioner", "uniform",     "--range-count",
            std::to_string(ranges),         "--workers",
            std::to_string(workers),        "--name",
            "catchup"};
  }
};

TEST_F(RunKubernetesOnLoopbackServer, RunCreatesOneJobPerRangeWithinTheCapAndRecordsEachSuccessOnce) {
  FakeApiServer server(pods_running(20));
  std::vector<std::string> args = run_args(server, 12, 3);
  args.insert(args.end(), {"--active-deadline", "1.5m"});
  CliResult result = run(args);
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
    EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 90);  // --active-deadline 1.5m
  }
}

// A node that joins the cluster while the run runs (an autoscaler's) is recorded as an arrival
// with its pool and when it was created and became ready; the nodes there before are not.
TEST_F(RunKubernetesOnLoopbackServer, ANodeJoiningDuringTheRunIsRecordedAsAnArrival) {
  FakeApiServer server(pods_running(400));
  server.add_node("before-1", "default-pool");
  const std::vector<data::NodeArrival> arrivals = nodes_recorded_while(server, [&] {
    server.add_node("scaled-1", "gpu-pool");
    usleep(50'000);
    server.make_node_ready("scaled-1");
  });
  ASSERT_EQ(arrivals.size(), 1u);
  EXPECT_EQ(arrivals[0].node, "scaled-1");
  EXPECT_EQ(arrivals[0].pool, "gpu-pool");
  ASSERT_TRUE(arrivals[0].created.has_value());
  ASSERT_TRUE(arrivals[0].ready.has_value());
  EXPECT_GE(*arrivals[0].ready, *arrivals[0].created);
}

// Spot nodes taken back while the run runs (deleted) are recorded as departures with their
// capacity type from their labels: one there at the start (recorded for it), one that joined; an
// on-demand node there at the start is not recorded.
TEST_F(RunKubernetesOnLoopbackServer, SpotNodesTakenBackDuringTheRunAreRecordedAsDepartures) {
  FakeApiServer server(pods_running(400));
  server.add_node("spot-0", "cheap", {{"cloud.google.com/gke-spot", "true"}});
  server.add_node("steady-0", "steady");
  const std::vector<data::NodeArrival> nodes = nodes_recorded_while(server, [&] {
    server.add_node("spot-1", "cheap", {{"karpenter.sh/capacity-type", "spot"}});
    usleep(50'000);
    server.delete_node("spot-0");
    server.delete_node("spot-1");
  });
  ASSERT_EQ(nodes.size(), 2u);
  for (const data::NodeArrival& node : nodes) {
    EXPECT_EQ(node.capacity_type, "spot") << node.node;
    EXPECT_EQ(node.pool, "cheap") << node.node;
    EXPECT_TRUE(node.departed.has_value()) << node.node;
    EXPECT_EQ(node.present_at_start, node.node == "spot-0") << node.node;
  }
}

// Nodes are cluster-scoped: an account whose Role covers only its namespace is refused them. The
// run goes on, and its record says why node arrivals are missing (no credentials in it).
TEST_F(RunKubernetesOnLoopbackServer, ARunRefusedTheNodesGoesOnAndRecordsWhyArrivalsAreMissing) {
  cluster_adapter::FakeApiServerOptions options = pods_running(200);
  options.forbidden = {"nodes"};
  FakeApiServer server(options);
  CliResult result = run(run_args(server, 6, 2));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("run 1: 6/6 items succeeded"), std::string::npos) << result.out;
  data::TraceStore trace = data::TraceStore::open(store);
  EXPECT_TRUE(trace.node_arrivals(1).empty());
  const std::string why = trace.node_arrivals_unrecorded(1);
  EXPECT_NE(why.find("the API server refused to list or watch nodes (HTTP 403 Forbidden)"), std::string::npos) << why;
  EXPECT_EQ(why.find("test-token"), std::string::npos);
  EXPECT_EQ(result.err.find("test-token"), std::string::npos);
}

// Each item's requests go into its Job's container; with --node-pools, an item no pool's machine
// fits is refused naming it and the short resource before any Job is created.
TEST_F(RunKubernetesOnLoopbackServer, JobsAskForTheItemsRequestsAndItemsFittingNoPoolAreRefusedUpFront) {
  FakeApiServer server(pods_running(5));
  std::ofstream(dir / "pools.csv") << "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory\n"
                                      "small,1,0,4,30,2,8Gi\n";
  std::vector<std::string> args = run_args(server, 2, 2);
  args.insert(args.end(), {"--request", "cpu=500m,memory=6Gi", "--node-pools", (dir / "pools.csv").string()});
  CliResult result = run(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_EQ(server.objects("jobs").size(), 2u);
  for (const auto& job : server.objects("jobs")) {
    // The template's cpu 1 and memory 2Gi replaced; its limits kept.
    const nlohmann::json& resources = job["spec"]["template"]["spec"]["containers"][0]["resources"];
    EXPECT_EQ(resources["requests"], nlohmann::json({{"cpu", "500m"}, {"memory", "6442450944"}})) << resources;
    EXPECT_EQ(resources["limits"], nlohmann::json({{"memory", "2Gi"}}));
  }

  FakeApiServer untouched(pods_running(5));
  args = run_args(untouched, 2, 2);
  args[4] = (dir / "second.db").string();
  args.insert(args.end(), {"--request", "cpu=500m,memory=12Gi", "--node-pools", (dir / "pools.csv").string()});
  result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: item '0-99': requests cpu 500m, memory 12884901888, more than any node pool's "
                            "machine has (small: cpu 2, memory 8589934592): it could never start (short: memory on small)"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(untouched.record().jobs_created, 0);
  EXPECT_TRUE(data::TraceStore::open((dir / "second.db").string()).runs().empty());
}

// GET /status's "cluster" part and GET /metrics while the run is going: an attempt whose pod
// cannot be placed is listed as unschedulable with its item; the API going away shows as
// unreachable with what is being retried, and as reachable again once it answers.
TEST_F(RunKubernetesOnLoopbackServer, StatusAndMetricsShowUnschedulablePodsAndAnUnreachableApiBeingRetried) {
  FakeApiServer server({[](const nlohmann::json& job) {
                          PodPlan plan{0, 60 * data::kMicrosPerSecond};
                          if (job["metadata"]["labels"]["millrace.io/item"] == "0-99") {
                            plan.pending = 60 * data::kMicrosPerSecond;
                            plan.unschedulable_message = "0/2 nodes are available: 2 Insufficient memory.";
                          }
                          return plan;
                        },
                        1 * data::kMicrosPerMilli});
  std::vector<std::string> args = run_args(server, 3, 3);
  args.insert(args.end(), {"--status-port", "0", "--unschedulable-after", "0.1"});
  pid_t pid = start(args);
  int port = status_port();
  ASSERT_GT(port, 0) << cli_test::read_text(dir / "stderr");
  httplib::Client client("127.0.0.1", port);
  auto status_until = [&](const std::function<bool(const nlohmann::json&)>& done) {
    nlohmann::json status;
    for (int i = 0; i < 3000; ++i, usleep(10'000)) {
      auto response = client.Get("/status");
      status = response ? nlohmann::json::parse(response->body, nullptr, false) : nlohmann::json();
      if (status.is_object() && status.contains("cluster") && done(status["cluster"])) break;
    }
    return status;
  };

  nlohmann::json waiting = status_until([](const nlohmann::json& c) { return c["unschedulable"].size() == 1; });
  ASSERT_EQ(waiting["cluster"]["unschedulable"].size(), 1u) << waiting.dump(2);
  nlohmann::json pod = waiting["cluster"]["unschedulable"][0];
  EXPECT_EQ(pod["item"], "0-99");
  EXPECT_EQ(pod["attempt"], 1);
  EXPECT_GE(pod["pending_for_us"].get<data::Micros>(), 100'000);
  EXPECT_EQ(waiting["cluster"]["kind"], "kubernetes");
  EXPECT_EQ(waiting["cluster"]["api"]["reachable"], true);
  EXPECT_EQ(waiting["jobs_in_progress"].size(), 3u);  // the scheduler's part is still there

  server.pause();
  nlohmann::json down = status_until([](const nlohmann::json& c) { return c["api"]["reachable"] == false; });
  nlohmann::json api = down["cluster"]["api"];
  ASSERT_EQ(api["reachable"], false) << down.dump(2);
  EXPECT_GE(api["consecutive_failures"].get<int>(), 1);
  EXPECT_GE(api["retries"].get<int>(), 1);
  EXPECT_GT(api["unreachable_since_us"].get<data::Micros>(), 0);
  ASSERT_FALSE(api["retrying"].empty());
  EXPECT_NE(api["retrying"][0]["problem"].get<std::string>().find(server.url()), std::string::npos) << api.dump(2);
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("\nmillrace_kubernetes_api_reachable 0\n"), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("\nmillrace_kubernetes_unschedulable_attempts 1\n"), std::string::npos);
  EXPECT_NE(metrics->body.find("\nmillrace_items_total 3\n"), std::string::npos);

  server.resume();
  nlohmann::json up = status_until([](const nlohmann::json& c) { return c["api"]["reachable"] == true; });
  EXPECT_EQ(up["cluster"]["api"]["reachable"], true) << up.dump(2);
  EXPECT_EQ(up["cluster"]["api"]["consecutive_failures"], 0);
  EXPECT_NE(up["cluster"]["api"]["last_error"].get<std::string>().find("no response"), std::string::npos);
  kill(pid, SIGINT);
  EXPECT_EQ(finish(pid).exit_code, 1);
}

TEST_F(RunKubernetesOnLoopbackServer, SigkillThenResumeReattachesToTheJobsInTheClusterWithoutCreatingThemAgain) {
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

TEST_F(RunKubernetesOnLoopbackServer, SigintDeletesTheUnfinishedJobsAndRecordsOnlyThemAsCancelled) {
  FakeApiServer server(pods_running(60'000));
  pid_t pid = start(run_args(server, 5, 2));
  for (int i = 0; i < 3000 && server.record().jobs_created < 2; ++i) usleep(10'000);
  kill(pid, SIGINT);
  expect_interrupted(finish(pid), 5, 2);
  EXPECT_EQ(server.record().jobs_created, 2);
  EXPECT_TRUE(server.objects("jobs").empty());
  EXPECT_EQ(server.record().deletes_without_policy, 0);
}

// A Ctrl-C while the API is unreachable records the attempts in flight as cancelled, but their
// deletes never reach the cluster and the Jobs run on; the resumed run deletes them (Background)
// before it creates anything, so it neither runs them twice nor goes over its cap.
TEST_F(RunKubernetesOnLoopbackServer, ResumeDeletesJobsWhoseCancelNeverReachedAnUnreachableApi) {
  std::atomic<bool> slow{true};  // pods of the first session run a minute, later ones a moment
  FakeApiServer server({[&slow](const nlohmann::json&) {
                          return PodPlan{0, (slow ? 60'000 : 20) * data::kMicrosPerMilli};
                        },
                        1 * data::kMicrosPerMilli});
  std::vector<std::string> args = run_args(server, 4, 2);
  args.insert(args.end(), {"--api-patience", "1"});
  pid_t pid = start(args);
  for (int i = 0; i < 3000 && server.record().jobs_created < 2; ++i) usleep(10'000);
  server.pause();
  kill(pid, SIGINT);
  CliResult stopped = finish(pid);
  EXPECT_EQ(stopped.exit_code, 1);
  std::vector<data::Attempt> attempts = data::TraceStore::open(store).attempts(1);
  ASSERT_EQ(attempts.size(), 2u) << stopped.err;
  for (const data::Attempt& a : attempts) EXPECT_EQ(a.outcome, data::Outcome::kCancelled) << a.item_id;
  EXPECT_NE(stopped.err.find("did not reach the Kubernetes API"), std::string::npos) << stopped.err;

  server.resume();
  ASSERT_EQ(server.objects("jobs").size(), 2u);  // the cancelled attempts still run
  slow = false;
  CliResult resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("deleting 2 Jobs whose attempts already ended: catchup-1-"), std::string::npos)
      << resumed.err;
  std::map<std::string, int> after = successes();
  EXPECT_EQ(after.size(), 4u);
  for (const auto& [item, count] : after) EXPECT_EQ(count, 1) << item;
  for (const auto& job : server.objects("jobs")) {
    EXPECT_TRUE(job["status"].contains("completionTime")) << job["metadata"]["name"];  // no cancelled Job left
  }
  cluster_adapter::FakeApiRecord record = server.record();
  EXPECT_EQ(record.jobs_created, 2 + 4);
  EXPECT_LE(record.max_unfinished_jobs, 2);
  EXPECT_EQ(record.deletes_without_policy, 0);
  EXPECT_EQ(record.orphaned_pods, 0);
}

TEST_F(RunKubernetesOnLoopbackServer, ApiFailingPastThePatienceStopsTheRunWithItsRecordsKeptAndResumeFinishesIt) {
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

TEST_F(RunKubernetesOnLoopbackServer, UnreachableApiAtResumeIsReportedWithTheRunLeftAsItWas) {
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

TEST_F(RunKubernetesOnLoopbackServer, WrongCertificateAuthorityIsRefusedNamingTheServerBeforeAnythingIsRecorded) {
  cluster_adapter::TestCertificates certs = cluster_adapter::TestCertificates::make(dir / "certs");
  cluster_adapter::FakeApiServerOptions options;
  options.tls = cluster_adapter::FakeApiTls{certs.server_certificate, certs.server_key, ""};
  FakeApiServer server(options);
  std::vector<std::string> args = run_args(server, 2, 1);
  std::string kubeconfig = args[6];
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                               "clusters:\n- name: loopback\n  cluster: {server: "
                            << server.url() << ", certificate-authority: " << certs.wrong_ca
                            << "}\ncontexts:\n- name: test\n  context: {cluster: loopback, user: tester}\n"
                               "users:\n- name: tester\n  user: {token: test-token}\n";
  CliResult result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: " + server.url() + "/apis/batch/v1/namespaces/default/jobs?limit=1: "
                            "no response (TLS): the server's certificate is not trusted by the configured "
                            "certificate authority; check the cluster's certificate-authority / "
                            "certificate-authority-data in " + kubeconfig),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
  EXPECT_EQ(server.record().lists, 0);
}

// --mode worker-pool: one Indexed Job whose pods (simulated workers speaking the lease protocol)
// run every range; a worker that stops heartbeating loses its range to another, and the store
// records that attempt as failed "lease-expired"; the Job is deleted when the run ends.
TEST_F(RunKubernetesOnLoopbackServer, WorkerPoolRunsEveryRangeOnceOnOneIndexedJobAndDeletesItAtTheEnd) {
  FakeApiServer server(pool_pods());
  cluster_adapter::SimulatedPool pool(server, {.hang_index = 2, .hang_on_lease = 1, .work_ms_per_100 = 10});
  CliResult result =
      run(pool_args(server, 12, 3, {"--lease-port", "0", "--lease-duration", "0.3", "--heartbeat", "0.05"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("run 1: 12/12 items succeeded"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("the Indexed Job catchup-1-pool (3 worker pods) in namespace batch-work at " + server.url() +
                            ", its workers leasing ranges from http://127.0.0.1:"),
            std::string::npos)
      << result.err;

  data::TraceStore trace = data::TraceStore::open(store);
  EXPECT_EQ(trace.run(1).policy, "fixed-pool");
  std::map<std::string, int> succeeded = successes();
  EXPECT_EQ(succeeded.size(), 12u);
  for (const auto& [item, count] : succeeded) EXPECT_EQ(count, 1) << item;
  int expired = 0;
  for (const data::Attempt& a : trace.attempts(1)) {
    if (a.outcome == data::Outcome::kSucceeded) continue;
    EXPECT_EQ(a.failure_reason, "lease-expired") << a.item_id;
    EXPECT_EQ(a.worker, pool.hung_pod());
    ++expired;
  }
  EXPECT_EQ(expired, 1);
  EXPECT_EQ(server.record().jobs_created, 1);
  EXPECT_TRUE(server.objects("jobs").empty());  // deleted before the run ended
  EXPECT_EQ(server.record().deletes_without_policy, 0);
}

// A port free now, for a lease API that must keep its address across a resume.
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// A worker-pool run killed with SIGKILL leaves its pool running; its workers keep asking at the
// lease URL, and the resumed run adopts the Indexed Job (no second one) and serves them again.
// Ranges whose completion the killed run never heard of run again; each success is recorded once.
TEST_F(RunKubernetesOnLoopbackServer, WorkerPoolSigkillThenResumeAdoptsThePoolAndItsWorkersFinishTheRun) {
  FakeApiServer server(pool_pods());
  cluster_adapter::SimulatedPool pool(server, {.work_ms_per_100 = 150});
  pid_t pid = start(pool_args(server, 12, 3,
                              {"--lease-port", std::to_string(free_port()), "--lease-duration", "2", "--heartbeat", "0.05"}));
  for (int i = 0; i < 3000 && successes().size() < 3; ++i) usleep(10'000);
  kill(pid, SIGKILL);
  ASSERT_EQ(finish(pid).exit_code, 128 + SIGKILL);
  ASSERT_GE(successes().size(), 3u);
  ASSERT_LT(successes().size(), 12u);
  ASSERT_EQ(server.objects("jobs").size(), 1u);  // the pool runs on

  CliResult resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::map<std::string, int> after = successes();
  EXPECT_EQ(after.size(), 12u);
  for (const auto& [item, count] : after) EXPECT_EQ(count, 1) << item;
  EXPECT_EQ(server.record().jobs_created, 1);
  EXPECT_EQ(server.record().create_conflicts, 1);  // the resumed run's create met the pool: adopted
  EXPECT_EQ(pool.workers_started(), 3);
  EXPECT_TRUE(server.objects("jobs").empty());
}

// A Ctrl-C of a worker-pool run cancels the leases held (recorded as cancelled, not as failures)
// and deletes the pool's Job.
TEST_F(RunKubernetesOnLoopbackServer, WorkerPoolSigintCancelsTheLeasesAndDeletesThePool) {
  FakeApiServer server(pool_pods());
  cluster_adapter::SimulatedPool pool(server, {.work_ms_per_100 = 60'000});
  pid_t pid = start(pool_args(server, 5, 2, {"--lease-port", "0", "--heartbeat", "0.05"}));
  for (int i = 0; i < 3000 && pool.workers_started() < 2; ++i) usleep(10'000);
  usleep(200'000);  // the workers lease their first ranges
  kill(pid, SIGINT);
  expect_interrupted(finish(pid), 5, 2);
  EXPECT_TRUE(server.objects("jobs").empty());
  EXPECT_EQ(server.record().deletes_without_policy, 0);
}

TEST_F(RunKubernetesOnLoopbackServer, WorkerPoolOptionsThatCannotWorkAreRefusedBeforeAnythingIsRecorded) {
  FakeApiServer server;
  auto refused = [&](std::vector<std::string> args, const std::string& error) {
    CliResult result = run(args);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find(error), std::string::npos) << result.err;
  };
  std::vector<std::string> item_template = run_args(server, 2, 1);
  item_template.insert(item_template.end(), {"--mode", "worker-pool", "--lease-address", "127.0.0.1"});
  refused(item_template, "deploy/job-template.json: a worker-pool Job template cannot use {first}");
  std::vector<std::string> no_address = pool_args(server, 2, 1, {});
  no_address.erase(no_address.end() - 2, no_address.end());  // --lease-address 127.0.0.1
  refused(no_address, "millrace: --mode worker-pool: needs --lease-address: where the lease API listens, an "
                      "address the pods reach (0.0.0.0 for every interface)");
  refused(pool_args(server, 2, 1, {"--policy", "autoscale"}),
          "millrace: --mode worker-pool: runs a fixed pool of --workers pods: --policy must be fixed-pool, not autoscale");
  refused(pool_args(server, 2, 1, {"--lease-duration", "10", "--heartbeat", "10"}),
          "millrace: --mode worker-pool: needs 0 < --heartbeat < --lease-duration");
  std::vector<std::string> unknown_mode = run_args(server, 2, 1);
  unknown_mode.insert(unknown_mode.end(), {"--mode", "pool"});
  refused(unknown_mode, "millrace: --mode: pool not in {job-per-item,worker-pool}");
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
  EXPECT_EQ(server.record().jobs_created, 0);
}

// An API that starts answering with the wrong shapes mid-run ({}, arrays, wrong types, huge
// numbers, non-JSON, truncated bodies, watch events of any shape) is an API failing: retried,
// shown in /status, and past --api-patience the run stops cleanly with what it recorded kept;
// --resume against the sane API finishes it, each range succeeded once.
TEST_F(RunKubernetesOnLoopbackServer, MalformedAnswersStopTheRunCleanlyAndResumeFinishesIt) {
  FakeApiServer server(pods_running(150));
  std::vector<std::string> args = run_args(server, 10, 2);
  args.insert(args.end(), {"--api-patience", "2", "--status-port", "0"});
  pid_t pid = start(args);
  int port = status_port();
  ASSERT_GT(port, 0) << cli_test::read_text(dir / "stderr");
  for (int i = 0; i < 3000 && successes().size() < 2; ++i) usleep(10'000);
  ASSERT_GE(successes().size(), 2u);
  server.answer_malformed(true);
  httplib::Client client("127.0.0.1", port);
  nlohmann::json api;
  for (int i = 0; i < 300; ++i, usleep(10'000)) {
    auto response = client.Get("/status");
    if (!response) break;  // the run has stopped
    nlohmann::json status = nlohmann::json::parse(response->body, nullptr, false);
    if (status.is_object() && status.contains("cluster") && status["cluster"]["api"]["reachable"] == false) {
      api = status["cluster"]["api"];
      break;
    }
  }
  std::map<std::string, int> recorded = successes();
  CliResult stopped = finish(pid);
  EXPECT_EQ(stopped.exit_code, 1);
  EXPECT_NE(stopped.err.find("the Kubernetes API has failed for more than 2 s"), std::string::npos) << stopped.err;
  EXPECT_NE(stopped.err.find("continue with `millrace run --store " + store + " --resume 1`"), std::string::npos)
      << stopped.err;
  for (const char* crash : {"terminate called", "json.exception", "Aborted", "std::"}) {
    EXPECT_EQ(stopped.err.find(crash), std::string::npos) << crash << " in " << stopped.err;
  }
  ASSERT_TRUE(api.is_object()) << "the status never showed the API failing";
  EXPECT_NE(api["last_error"].get<std::string>().find("Malformed"), std::string::npos) << api.dump(2);
  EXPECT_GE(server.record().malformed_answers, 10);
  for (const auto& [item, count] : recorded) EXPECT_EQ(successes()[item], count) << item;  // nothing lost

  server.answer_malformed(false);
  CliResult resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("run 1: 10/10 items succeeded"), std::string::npos) << resumed.out;
  std::map<std::string, int> succeeded = successes();
  EXPECT_EQ(succeeded.size(), 10u);
  for (const auto& [item, count] : succeeded) EXPECT_EQ(count, 1) << item;
}

// Credentials never shown or kept: the API's error messages echo the request's headers (the
// bearer token), the kubeconfig's server URL carries a user and password; neither appears on
// stderr or stdout, in /status, /metrics, or anywhere in the store file, though the run's
// messages and records do quote those errors (redacted).
TEST_F(RunKubernetesOnLoopbackServer, CredentialsAppearInNoOutputStatusMetricsOrStore) {
  const std::string token = "s3cr3t-Token-4242-xyz";
  const std::string password = "hunter2pass";
  cluster_adapter::FakeApiServerOptions options = pods_running(1500);
  options.required_token = token;
  FakeApiServer server(options);
  server.echo_headers_in_errors(true);
  server.inject_errors(2, 500, 0, "POST");
  std::vector<std::string> args = run_args(server, 3, 2);
  std::ofstream(args[6]) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                            "clusters:\n- name: loopback\n  cluster: {server: \"http://admin:"
                         << password << "@127.0.0.1:" << server.port()
                         << "\"}\ncontexts:\n- name: test\n  context: {cluster: loopback, user: tester, namespace: batch-work}\n"
                            "users:\n- name: tester\n  user: {token: "
                         << token << "}\n";
  args.insert(args.end(), {"--status-port", "0", "--max-attempts", "3"});
  pid_t pid = start(args);
  int port = status_port();
  ASSERT_GT(port, 0) << cli_test::read_text(dir / "stderr");
  for (int i = 0; i < 3000 && server.record().injected_errors_served < 2; ++i) usleep(10'000);
  server.inject_errors(1, 422, 0, "POST");  // refused for good: the attempt fails with the echo as its reason
  for (int i = 0; i < 3000 && server.record().injected_errors_served < 3; ++i) usleep(10'000);
  ASSERT_EQ(server.record().injected_errors_served, 3);
  httplib::Client client("127.0.0.1", port);
  std::string status_body, metrics_body;
  for (int i = 0; i < 300 && status_body.find("Authorization") == std::string::npos; ++i, usleep(10'000)) {
    auto status = client.Get("/status");
    auto metrics = client.Get("/metrics");
    if (status && metrics) status_body = status->body, metrics_body = metrics->body;
  }
  CliResult result = finish(pid);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(status_body.find("Authorization: [redacted]"), std::string::npos) << status_body;
  EXPECT_NE(result.err.find("at http://admin:[redacted]@127.0.0.1:"), std::string::npos) << result.err;
  bool reason_kept = false;
  std::string reasons;
  for (const data::Attempt& a : data::TraceStore::open(store).attempts(1)) {
    reasons += a.failure_reason + "\n";
    reason_kept |= a.failure_reason.rfind("create-rejected: http://admin:[redacted]@127.0.0.1:", 0) == 0 &&
                   a.failure_reason.find(": HTTP 422 Invalid: injected: invalid") != std::string::npos &&
                   a.failure_reason.find("Authorization: [redacted]") != std::string::npos;
  }
  EXPECT_TRUE(reason_kept) << reasons;
  const std::string store_bytes = cli_test::read_text(store);
  ASSERT_FALSE(store_bytes.empty());
  for (const std::string& secret : {token, password}) {
    EXPECT_EQ(result.err.find(secret), std::string::npos) << result.err;
    EXPECT_EQ(result.out.find(secret), std::string::npos) << result.out;
    EXPECT_EQ(status_body.find(secret), std::string::npos) << status_body;
    EXPECT_EQ(metrics_body.find(secret), std::string::npos) << metrics_body;
    EXPECT_EQ(store_bytes.find(secret), std::string::npos) << secret << " in the store file";
  }
}

// A token holding CR/LF would add headers of its own to every request: refused, naming the
// setting (not showing the value), before anything is recorded or sent.
TEST_F(RunKubernetesOnLoopbackServer, KubeconfigTokenWithControlCharactersIsRefusedBeforeAnythingIsSent) {
  FakeApiServer server;
  std::vector<std::string> args = run_args(server, 2, 1);
  std::ofstream(args[6]) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                            "clusters:\n- name: loopback\n  cluster: {server: "
                         << server.url()
                         << "}\ncontexts:\n- name: test\n  context: {cluster: loopback, user: tester}\n"
                            "users:\n- name: tester\n  user: {token: \"abc\\r\\nX-Injected: yes\"}\n";
  CliResult result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: " + args[6] + ": user 'tester' token contains a control character (0x0d at "
                            "offset 3); refused, it would be sent in an HTTP request"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("X-Injected"), std::string::npos) << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
  EXPECT_EQ(server.record().lists, 0);
}

TEST_F(RunKubernetesOnLoopbackServer, UnknownClusterNameIsAnErrorListingTheKnownOnes) {
  CliResult result = run({"run", "--cluster", "slurm", "--store", store, "--span", "0:99", "--partitioner", "uniform",
                          "--range-count", "2", "--command", "true"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: --cluster: unknown cluster 'slurm' (known: local, kubernetes)"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
}

TEST_F(RunKubernetesOnLoopbackServer, KubernetesRunWithoutAJobTemplateIsRefusedBeforeAnythingIsRecorded) {
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
