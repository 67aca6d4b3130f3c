// The Kubernetes adapter's job-per-item end-to-end run against a real kube-apiserver v1.20
// (RealApiServer fixture: etcd, the real Job and garbage-collector controllers, the project's
// fake kubelet): the scheduler core drives 200 ranges through KubernetesCluster, connected as the
// user millrace (a kubeconfig with the fixture's CA and a bearer token; exactly the documented
// Role), with at most 8 in flight while 5% of the first attempts' pods fail; midway the Jobs'
// watch is made to restart from a resourceVersion etcd has compacted away, so the server answers
// it with 410 inside the stream. Checked: every range succeeds exactly once in the trace store,
// the API server never holds more than 8 unfinished Jobs of the run (from its own watch stream),
// the history limits hold, no pod is left orphaned, and each attempt records when its pod was
// bound and to which node.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "cluster_adapter/kubernetes/job_template.h"
#include "cluster_adapter/kubernetes/job_view.h"
#include "cluster_adapter/kubernetes/kubernetes_cluster.h"
#include "cluster_adapter/realtime/real_run_loop.h"
#include "cluster_adapter/realtime/run_recorder.h"
#include "cluster_adapter/realtime/wall_clock.h"
#include "data/trace_store.h"
#include "scheduler/scheduler.h"
#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/k8s_real/real_apiserver.h"

namespace millrace::k8s_real {
namespace {

using cluster_adapter::KubeClient;
using cluster_adapter::KubernetesCluster;
using nlohmann::json;

constexpr int kRanges = 200;
constexpr int kCap = 8;
constexpr int kKeepSucceeded = 10;
constexpr int kKeepFailed = 4;
constexpr std::uint64_t kSeed = 20261202;

std::vector<data::WorkItem> ranges() {
  std::vector<data::WorkItem> items;
  for (int i = 0; i < kRanges; ++i) {
    data::WorkItem item;
    item.id = "r";
    item.id += std::to_string(i);
    item.range = data::Range{i * 1000, 1000};
    items.push_back(item);
  }
  return items;
}

// 5% of the ranges, chosen by the seeded generator: their first attempt's pod fails.
std::set<std::string> failing_ranges() {
  std::vector<int> order(kRanges);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(kSeed);
  std::shuffle(order.begin(), order.end(), random);
  std::set<std::string> chosen;
  for (int i = 0; i < kRanges / 20; ++i) chosen.insert("r" + std::to_string(order[i]));
  return chosen;
}

json kubelet_rule(const std::set<std::string>& failing, bool hold) {
  json fail = json::array();
  for (const auto& id : failing) fail.push_back({{cluster_adapter::kItemLabel, id}, {cluster_adapter::kAttemptLabel, "1"}});
  return {{"pending_ms", 20}, {"run_ms", 60}, {"fail", fail}, {"hold", hold}};
}

cluster_adapter::JobTemplate worker_template() {
  return cluster_adapter::JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
    "spec": {"template": {"spec": {"automountServiceAccountToken": false,
      "containers": [{"name": "worker", "image": "catchup:1", "command": ["catchup"],
                      "args": ["--range", "{first}", "{count}"]}]}}}})",
                                             "real apiserver test template");
}

class RealApiServerJobPerItem : public ::testing::Test {
 protected:
  RealApiServerJobPerItem() : server_(MILLRACE_K8S_STATE_DIR) {}

  // The adapter's client: the user millrace's kubeconfig (the fixture's CA and a bearer token),
  // with exactly the documented Role in `ns`.
  KubeClient millrace_client(const std::string& ns) const {
    server_.grant_to_millrace(ns, documented_role());
    return KubeClient(server_.config("millrace", ns), cluster_adapter::fast_backoff());
  }

  // The run's Jobs and pods as the API server lists them now.
  json list(const std::string& collection) const {
    return server_.admin().call("GET", collection + "?labelSelector=" +
                                           KubeClient::query_escape(std::string(cluster_adapter::kRunLabel) + "=e2e"));
  }

  RealApiServer server_;
};

TEST_F(RealApiServerJobPerItem, TwoHundredRangesSucceedOnceUnderTheCapThroughFailuresAndA410) {
  const std::set<std::string> failing = failing_ranges();
  const std::string ns = server_.create_namespace("e2e", kubelet_rule(failing, false));
  const std::string jobs = "/apis/batch/v1/namespaces/" + ns + "/jobs";
  const std::string pods = "/api/v1/namespaces/" + ns + "/pods";

  auto db = std::filesystem::path(::testing::TempDir()) / ("real_apiserver_e2e_" + ns + ".db");
  std::filesystem::remove(db);
  data::TraceStore store = data::TraceStore::open(db.string());
  std::vector<data::WorkItem> items = ranges();
  data::Run run;
  run.name = "e2e";
  run.source = data::RunSource::kReal;
  run.policy = "job-per-item";
  const std::int64_t run_id = store.add_run(run, items, {});
  cluster_adapter::StoreBacklog writes(store);
  cluster_adapter::RunRecorder recorder(writes, run_id, items, {});

  JobCensus census(server_.admin(), ns, std::string(cluster_adapter::kRunLabel) + "=e2e");

  cluster_adapter::KubernetesClusterOptions options;
  options.run = "e2e";
  options.max_concurrency = kCap;
  options.keep_succeeded = kKeepSucceeded;
  options.keep_failed = kKeepFailed;
  options.watch_timeout_seconds = 2;  // streams end often, so the 410 is met soon after compaction
  options.backoff = cluster_adapter::fast_backoff();
  cluster_adapter::WallClock clock;
  KubernetesCluster cluster(millrace_client(ns), worker_template(), options, clock);

  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.policy = "job-per-item";
  scheduler_options.params.max_in_flight = kCap;
  scheduler_options.retry.max_attempts = 3;
  scheduler::Scheduler scheduler(items, scheduler_options, cluster, clock);
  int succeeded = 0;
  scheduler.set_observer([&](scheduler::AttemptHandle, const data::Attempt& attempt) {
    recorder.observe(attempt);
    succeeded += attempt.outcome == data::Outcome::kSucceeded;
  });

  // Midway: hold every pod (so the run's Jobs stop changing), compact etcd past the adapter's
  // last resourceVersion, and release the pods once the adapter has listed again.
  enum class Stage { kRunning, kHolding, kCompacted, kReleased } stage = Stage::kRunning;
  std::uint64_t census_events = 0;
  auto quiet_since = std::chrono::steady_clock::now();
  int lists_before_compaction = 0;

  // The event loop of `millrace run`, with the stages above stepped after each turn.
  scheduler.start();
  const auto guard = std::chrono::steady_clock::now() + std::chrono::minutes(8);  // a hang guard
  cluster_adapter::RealRunLoop loop(clock, cluster, 20 * data::kMicrosPerMilli);
  loop.run_until([&] { return scheduler.finished() || std::chrono::steady_clock::now() > guard; }, [&] {
    auto now = std::chrono::steady_clock::now();
    if (stage == Stage::kRunning && succeeded >= kRanges / 3) {
      server_.set_kubelet_rule(ns, kubelet_rule(failing, true));
      stage = Stage::kHolding;
    } else if (stage == Stage::kHolding) {
      if (census.events() != census_events) {
        census_events = census.events();
        quiet_since = now;
      } else if (now - quiet_since > std::chrono::seconds(3)) {
        lists_before_compaction = cluster.status().lists;
        server_.compact_etcd(ns);
        stage = Stage::kCompacted;
      }
    } else if (stage == Stage::kCompacted && cluster.status().lists > lists_before_compaction) {
      server_.set_kubelet_rule(ns, kubelet_rule(failing, false));
      stage = Stage::kReleased;
    }
  });
  ASSERT_TRUE(scheduler.finished()) << "run not finished: " << succeeded << " succeeded, stage "
                                    << static_cast<int>(stage) << ", API problem: " << cluster.status().api.last_error;
  EXPECT_FALSE(scheduler.run_failed());
  EXPECT_EQ(stage, Stage::kReleased) << "the adapter never listed again after the compaction";

  // Every range succeeded exactly once; the chosen 5% failed once first.
  std::map<std::string, int> successes;
  std::map<std::string, int> failures;
  for (const data::Attempt& attempt : store.attempts(run_id)) {
    if (attempt.outcome == data::Outcome::kSucceeded) ++successes[attempt.item_id];
    if (attempt.outcome == data::Outcome::kFailed) {
      ++failures[attempt.item_id];
      EXPECT_EQ(attempt.number, 1) << attempt.item_id;
    }
  }
  for (const data::WorkItem& item : items) {
    EXPECT_EQ(successes[item.id], 1) << item.id;
    EXPECT_EQ(failures[item.id], failing.count(item.id) ? 1 : 0) << item.id;
  }
  EXPECT_EQ(store.attempts(run_id).size(), static_cast<std::size_t>(kRanges + failing.size()));

  // The phases the control plane set: the binding's PodScheduled time and the node, in order
  // between the Job's creation and its pod's start. An attempt whose pod was never seen before it
  // ended has no placement; a handful at most.
  std::size_t placed = 0;
  for (const data::Attempt& attempt : store.attempts(run_id)) {
    ASSERT_TRUE(attempt.submitted.has_value()) << attempt.item_id;
    EXPECT_LE(*attempt.submitted, attempt.start) << attempt.item_id;
    if (!attempt.placed) continue;
    ++placed;
    EXPECT_LE(*attempt.submitted, *attempt.placed) << attempt.item_id;
    EXPECT_LE(*attempt.placed, attempt.start) << attempt.item_id;
    EXPECT_EQ(attempt.node, "fake-node-0") << attempt.item_id;
  }
  EXPECT_GE(placed, store.attempts(run_id).size() * 9 / 10);

  // The cap held at every moment of the API server's own stream of the run's Jobs.
  EXPECT_EQ(census.problem(), "");
  EXPECT_LE(census.max_unfinished(), kCap);
  EXPECT_GT(census.max_unfinished(), 0);

  // History limits hold once the adapter's deletions are done, and the garbage collector
  // leaves no pod without its Job.
  auto settled = [&](std::string& why) {
    int kept_succeeded = 0, kept_failed = 0;
    std::set<std::string> job_names;
    const json job_list = list(jobs);
    for (const json& job : job_list["items"]) {
      auto view = cluster_adapter::view_job(job);
      job_names.insert(view.name);
      kept_succeeded += view.phase == cluster_adapter::JobPhase::kSucceeded;
      kept_failed += view.phase == cluster_adapter::JobPhase::kFailed;
    }
    std::vector<std::string> orphans;
    const json pod_list = list(pods);
    for (const json& pod : pod_list["items"]) {
      const json& owners = pod["metadata"].value("ownerReferences", json::array());
      if (owners.empty() || !job_names.count(owners[0].value("name", ""))) {
        orphans.push_back(pod["metadata"]["name"].get<std::string>());
      }
    }
    why = std::to_string(kept_succeeded) + " succeeded and " + std::to_string(kept_failed) +
          " failed Jobs kept, " + std::to_string(orphans.size()) + " orphaned pods" +
          (orphans.empty() ? "" : " (first: " + orphans.front() + ")");
    return kept_succeeded <= kKeepSucceeded && kept_failed <= kKeepFailed && orphans.empty();
  };
  std::string why;
  for (int i = 0; i < 600 && !settled(why); ++i) cluster.poll(100 * data::kMicrosPerMilli);
  EXPECT_TRUE(settled(why)) << why;

  server_.delete_namespace(ns);
  std::filesystem::remove(db);
}

// DELETE answers a Status when the Job is gone at once (what the run above meets), or the Job
// itself, deletionTimestamp set, while a finalizer still holds it. Here the template gives every
// Job a finalizer of the test's own, so each of the adapter's history deletes gets the second
// answer: the adapter takes it as done (no trouble shown), reports nothing more for the attempt
// when the Job is finally gone, and the pods still go with it (Background).
TEST_F(RealApiServerJobPerItem, HistoryDeleteAnsweredWithTheJobStillHeldByAFinalizerIsTakenAsDone) {
  const std::string ns = server_.create_namespace("finalizer", {{"pending_ms", 20}, {"run_ms", 60}});
  const std::string jobs = "/apis/batch/v1/namespaces/" + ns + "/jobs";
  const std::string pods = "/api/v1/namespaces/" + ns + "/pods";
  json manifest = json::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"finalizers": ["test.millrace.io/hold"]},
    "spec": {"template": {"spec": {"automountServiceAccountToken": false,
      "containers": [{"name": "worker", "image": "catchup:1", "args": ["{first}", "{count}"]}]}}}})");
  cluster_adapter::KubernetesClusterOptions options;
  options.run = "e2e";
  options.max_concurrency = 2;
  options.keep_succeeded = 0;
  options.backoff = cluster_adapter::fast_backoff();
  cluster_adapter::SteadyTestClock clock;
  cluster_adapter::RecordingListener listener;
  KubernetesCluster cluster(millrace_client(ns),
                            cluster_adapter::JobTemplate::parse(manifest.dump(), "finalizer test template"), options,
                            clock);
  cluster.set_listener(&listener);
  std::vector<data::WorkItem> items = ranges();
  items.resize(4);
  for (int i = 0; i < 4; ++i) {
    cluster.submit(test_support::loose_submission(static_cast<scheduler::AttemptHandle>(i + 1), items[i], 1));
  }

  auto all_held = [&] {
    const json job_list = list(jobs);
    int held = 0;
    for (const json& job : job_list["items"]) held += job["metadata"].contains("deletionTimestamp");
    return listener.count("succeeded") == 4 && held == 4;
  };
  for (int i = 0; i < 1500 && !all_held(); ++i) cluster.poll(20 * data::kMicrosPerMilli);
  ASSERT_TRUE(all_held()) << listener.count("succeeded") << " succeeded; " << list(jobs).dump();
  for (int i = 0; i < 10; ++i) cluster.poll(20 * data::kMicrosPerMilli);
  EXPECT_TRUE(cluster.status().api.reachable) << cluster.status().api.last_error;

  const json held = list(jobs);
  for (const json& job : held["items"]) {
    const std::string path = jobs + "/" + job["metadata"]["name"].get<std::string>();
    for (bool released = false; !released;) {
      json current = server_.admin().call("GET", path);
      current["metadata"].erase("finalizers");
      try {
        server_.admin().call("PUT", path, current);
        released = true;
      } catch (const cluster_adapter::KubeApiError& error) {
        if (error.status() != 409) throw;  // the Job controller wrote it meanwhile: read again
      }
    }
  }
  auto all_gone = [&] { return list(jobs)["items"].empty() && list(pods)["items"].empty(); };
  for (int i = 0; i < 1500 && !all_gone(); ++i) cluster.poll(20 * data::kMicrosPerMilli);
  EXPECT_TRUE(all_gone()) << list(pods).dump();
  for (int i = 0; i < 10; ++i) cluster.poll(20 * data::kMicrosPerMilli);
  for (scheduler::AttemptHandle handle = 1; handle <= 4; ++handle) {
    EXPECT_EQ(listener.count("started", handle), 1) << handle;
    EXPECT_EQ(listener.count("succeeded", handle), 1) << handle;
  }
  EXPECT_EQ(listener.count("failed"), 0);
  EXPECT_TRUE(cluster.status().api.reachable) << cluster.status().api.last_error;

  server_.delete_namespace(ns);
}

}  // namespace
}  // namespace millrace::k8s_real
