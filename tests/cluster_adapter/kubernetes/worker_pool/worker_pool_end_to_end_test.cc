// Worker-pool mode end to end on the loopback API test server: the real scheduler core (fixed
// pool of 4), the wall clock and real-run event loop drive a WorkerPoolCluster whose one Indexed
// Job's pods are simulated workers speaking the lease protocol. Every range succeeds exactly
// once; a worker that stops heartbeating mid-range loses its lease, which comes back as a failed
// attempt (lease-expired) and is run again by another worker; its late answer is refused; one
// Job serves the whole run and is deleted at its end.
#include "cluster_adapter/kubernetes/worker_pool/worker_pool_cluster.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>

#include "cluster_adapter/kubernetes/worker_pool/worker_pool_status.h"
#include "cluster_adapter/realtime/real_run_loop.h"
#include "cluster_adapter/realtime/wall_clock.h"
#include "scheduler/scheduler.h"
#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/cluster_adapter/kubernetes/worker_pool/simulated_pool.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

constexpr int kItems = 40;
constexpr int kWorkers = 4;

JobTemplate pool_template() {
  return JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"labels": {"app": "catchup"}},
    "spec": {"template": {"spec": {"containers": [{"name": "worker", "image": "catchup-worker:1",
      "command": ["pool-worker.sh"]}]}}}})", "pool template");
}

std::vector<data::WorkItem> plan() {
  std::vector<data::WorkItem> items;
  for (int i = 0; i < kItems; ++i) {
    data::WorkItem item;
    item.id = "r";
    item.id += std::to_string(i);
    item.range = data::Range{i * 100, 100 + (i % 5) * 50};
    items.push_back(item);
  }
  return items;
}

// The pods the cluster deleted to replace lost workers, in order.
std::vector<std::string> deleted_pods(const WorkerPoolCluster& cluster) {
  std::vector<std::string> pods;
  for (const LostWorker& worker : cluster.status().lost) {
    if (worker.state == "deleted") pods.push_back(worker.pod);
  }
  return pods;
}

bool has_pod(const FakeApiServer& server, const std::string& name) {
  for (const json& pod : server.objects("pods")) {
    if (pod["metadata"]["name"] == name) return true;
  }
  return false;
}

// The loopback Job controller names an index's pods JOB-INDEX-N, N counting the pods made for it.
std::string next_pod_of_its_index(const std::string& pod) {
  const std::size_t dash = pod.rfind('-');
  return pod.substr(0, dash + 1) + std::to_string(std::stoi(pod.substr(dash + 1)) + 1);
}

// The pool of kWorkers of the end-to-end runs: leases of 300 ms, heartbeats every 50 ms, 200 ms waits.
WorkerPoolOptions pool_of_short_leases() {
  WorkerPoolOptions options;
  options.run = "pool";
  options.workers = kWorkers;
  options.lease_host = "127.0.0.1";
  options.lease = {300 * data::kMicrosPerMilli, 50 * data::kMicrosPerMilli, 200 * data::kMicrosPerMilli};
  options.backoff = fast_backoff();
  return options;
}

scheduler::SchedulerOptions fixed_pool_of_three_attempts() {
  scheduler::SchedulerOptions options;
  options.plan_name = "pool";
  options.policy = "fixed-pool";
  options.params.workers = kWorkers;
  options.retry.max_attempts = 3;
  return options;
}

TEST(WorkerPoolOnLoopbackServer, EveryRangeSucceedsOnceAnExpiredLeaseIsRunAgainElsewhereAndTheJobIsDeleted) {
  FakeApiServer server({[](const json&) { return PodPlan{5 * data::kMicrosPerMilli, kUntilEnded}; },
                        1 * data::kMicrosPerMilli});
  SimulatedPool pool(server, {.hang_index = 1, .hang_on_lease = 2, .work_ms_per_100 = 8});
  WallClock clock;
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(),
                            pool_of_short_leases(), clock);
  EXPECT_EQ(cluster.lease_url(), "http://127.0.0.1:" + std::to_string(cluster.lease_port()));

  scheduler::Scheduler scheduler(plan(), fixed_pool_of_three_attempts(), cluster, clock);
  auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // hang guard
  json indexed_job;
  scheduler.start();
  RealRunLoop loop(clock, cluster, 20 * data::kMicrosPerMilli);
  loop.run_until([&] { return scheduler.finished() || std::chrono::steady_clock::now() > give_up_at; },
                 [&] {
                   if (indexed_job.is_null() && !server.objects("jobs").empty()) indexed_job = server.objects("jobs")[0];
                 });
  ASSERT_TRUE(scheduler.finished()) << scheduler.status().num_succeeded << " items succeeded";
  EXPECT_FALSE(scheduler.run_failed());

  std::map<std::string, int> successes;
  std::map<std::string, std::string> succeeded_on;
  std::vector<data::Attempt> failures;
  for (const data::Attempt& attempt : scheduler.attempts()) {
    if (attempt.outcome == data::Outcome::kSucceeded) {
      ++successes[attempt.item_id];
      succeeded_on[attempt.item_id] = attempt.worker;
    } else {
      failures.push_back(attempt);
    }
  }
  EXPECT_EQ(successes.size(), static_cast<size_t>(kItems));
  for (const auto& [item, count] : successes) EXPECT_EQ(count, 1) << item;
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure_reason, kLeaseExpired);
  EXPECT_EQ(failures[0].worker, pool.hung_pod());
  EXPECT_NE(succeeded_on[failures[0].item_id], pool.hung_pod());
  EXPECT_EQ(cluster.status().leases.expired, 1);

  // One Indexed Job, one pod per index, served the whole run.
  EXPECT_EQ(server.record().jobs_created, 1);
  ASSERT_FALSE(indexed_job.is_null());
  EXPECT_EQ(indexed_job["metadata"]["name"], "pool-pool");
  EXPECT_EQ(indexed_job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(indexed_job["spec"]["completions"], kWorkers);
  EXPECT_EQ(indexed_job["spec"]["parallelism"], kWorkers);
  EXPECT_EQ(indexed_job["spec"]["template"]["spec"]["restartPolicy"], "OnFailure");
  std::map<std::string, std::string> env = pool.first_pod_env();
  EXPECT_EQ(env["MILLRACE_LEASE_URL"], cluster.lease_url());
  EXPECT_EQ(env["MILLRACE_RUN"], "pool");
  EXPECT_EQ(env["MILLRACE_WORKERS"], std::to_string(kWorkers));
  // Its pod was deleted, once the lease expired and nothing was heard of it, and its Job made a
  // new one for the index. (A worker whose heartbeat was only late came back: its pod is kept.)
  ASSERT_TRUE(poll_until(cluster, [&] { return deleted_pods(cluster) == std::vector<std::string>{pool.hung_pod()}; }))
      << to_json(cluster.status(), clock.now()).dump();
  EXPECT_FALSE(has_pod(server, pool.hung_pod()));
  EXPECT_TRUE(poll_until(cluster, [&] { return has_pod(server, next_pod_of_its_index(pool.hung_pod())); }));

  ASSERT_TRUE(cluster.shut_down(true, 10 * data::kMicrosPerSecond));
  ASSERT_TRUE(poll_until(cluster, [&] { return server.objects("jobs").empty() && server.objects("pods").empty(); }));
  EXPECT_EQ(server.record().deletes_without_policy, 0);
  EXPECT_EQ(server.record().orphaned_pods, 0);
  pool.release_hung();
  ASSERT_TRUE(poll_until(cluster, [&] { return pool.late_completion_status() != 0; }));
  EXPECT_EQ(pool.late_completion_status(), 410);
}

// A double fault on the same work: the last range's worker hangs, the idle worker kept for its
// retry takes it and hangs too, while every other worker has been let go. Each hung worker's pod
// is deleted once its lease expires, so its Job makes a new one, whose worker runs the range.
TEST(WorkerPoolOnLoopbackServer, ARetrysWorkerHungAfterTheOthersWentIsReplacedAndTheRunEnds) {
  FakeApiServer server({[](const json&) { return PodPlan{5 * data::kMicrosPerMilli, kUntilEnded}; },
                        1 * data::kMicrosPerMilli});
  const std::string last = "r" + std::to_string(kItems - 1);
  SimulatedPool pool(server, {.work_ms_per_100 = 2, .hang_item = last, .hang_item_leases = 2});
  WallClock clock;
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(),
                            pool_of_short_leases(), clock);
  scheduler::Scheduler scheduler(plan(), fixed_pool_of_three_attempts(), cluster, clock);
  auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(30);  // a stall guard
  scheduler.start();
  RealRunLoop loop(clock, cluster, 20 * data::kMicrosPerMilli);
  loop.run_until([&] { return scheduler.finished() || std::chrono::steady_clock::now() > give_up_at; }, [] {});
  ASSERT_TRUE(scheduler.finished()) << "stalled: " << to_json(cluster.status(), clock.now()).dump();
  EXPECT_FALSE(scheduler.run_failed());

  std::map<std::string, int> successes;
  std::vector<std::string> lost_by;
  for (const data::Attempt& attempt : scheduler.attempts()) {
    if (attempt.outcome == data::Outcome::kSucceeded) {
      ++successes[attempt.item_id];
    } else {
      EXPECT_EQ(attempt.item_id, last);
      EXPECT_EQ(attempt.failure_reason, kLeaseExpired);
      lost_by.push_back(attempt.worker);
    }
  }
  EXPECT_EQ(successes.size(), static_cast<size_t>(kItems));
  for (const auto& [item, count] : successes) EXPECT_EQ(count, 1) << item;
  const std::vector<std::string> hung = pool.hung_pods();
  ASSERT_EQ(hung.size(), 2u);
  EXPECT_EQ(lost_by, hung);
  // Both hung pods were deleted (the server has them no more) and said so; their Job made new ones.
  ASSERT_TRUE(poll_until(cluster, [&] { return deleted_pods(cluster) == hung; }))
      << to_json(cluster.status(), clock.now()).dump();
  for (const std::string& pod : hung) EXPECT_FALSE(has_pod(server, pod)) << pod;
  for (const std::string& pod : hung) {
    EXPECT_TRUE(poll_until(cluster, [&] { return has_pod(server, next_pod_of_its_index(pod)); })) << pod;
  }
  const json shown = to_json(cluster.status(), clock.now());
  std::vector<std::string> shown_deleted;
  for (const json& worker : shown["workers_lost"]) {
    if (worker["state"] == "deleted") {
      EXPECT_EQ(worker["why"], "its lease expired");
      EXPECT_EQ(worker["worker"], worker["pod"]);
      shown_deleted.push_back(worker["pod"]);
    }
  }
  EXPECT_EQ(shown_deleted, hung);
  EXPECT_EQ(shown["trouble"], "");
  ASSERT_TRUE(cluster.shut_down(true, 10 * data::kMicrosPerSecond));
}

WorkerPoolOptions small_pool() {
  WorkerPoolOptions options;
  options.run = "pool";
  options.workers = 2;
  options.lease_host = "127.0.0.1";
  options.backoff = fast_backoff();
  return options;
}

TEST(WorkerPoolOnLoopbackServer, FinishedPoolJobOfAnEarlierSessionIsDeletedAndMadeAgain) {
  std::atomic<bool> earlier{true};  // the earlier session's pods end at once
  FakeApiServer server({[&](const json&) { return earlier ? PodPlan{} : PodPlan{0, kUntilEnded}; },
                        1 * data::kMicrosPerMilli});
  KubeClient client(test_server_config(server), fast_backoff());
  client.call("POST", "/apis/batch/v1/namespaces/default/jobs", pool_template().render_pool("pool", "default", 2, "x"));
  auto complete = [&] {
    return !server.objects("jobs").empty() && server.objects("jobs")[0]["status"].contains("completionTime");
  };
  for (int i = 0; i < 3000 && !complete(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(complete());
  earlier = false;
  SteadyTestClock clock;
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(), small_pool(), clock);
  ASSERT_TRUE(poll_until(cluster, [&] { return cluster.status().pods["Running"] == 2; }));
  EXPECT_EQ(server.record().jobs_created, 2);
  EXPECT_EQ(cluster.status().job_state, "running");
  EXPECT_EQ(cluster.status().trouble, "");
}

TEST(WorkerPoolOnLoopbackServer, FailedPoolJobIsTroubleWhileWorkWaitsForIt) {
  FakeApiServer server({[](const json&) { return PodPlan{0, 0, 1}; }, 1 * data::kMicrosPerMilli});  // pods crash
  SteadyTestClock clock;
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(), small_pool(), clock);
  data::WorkItem item = plan()[0];
  cluster.submit(test_support::loose_submission(1, item, 1, "w000"));
  ASSERT_TRUE(poll_until(cluster, [&] { return !cluster.status().trouble.empty(); }));
  EXPECT_EQ(cluster.status().trouble,
            "the worker pool Job pool-pool can serve no more work (failed: its workers failed more often than its "
            "backoffLimit allows); resume the run to make it again");
  EXPECT_EQ(cluster.status().leases.offered, 1);
}

// Only a pod the pool's watch shows running in the pool's Job is deleted, and only for a worker
// not heard from since its lease expired: a worker naming no pod of the pool is never acted on,
// one whose heartbeat comes late came back, and one named by its hostname (JOB-INDEX, a worker
// without POD_NAME) is found. A refused delete is told, and work then waiting with no worker
// left to take it is trouble naming the lost worker's pod.
TEST(WorkerPoolOnLoopbackServer, OnlyARunningPodOfThePoolIsDeletedForAWorkerNotHeardFromSinceItsLeaseExpired) {
  FakeApiServer server({[](const json&) { return PodPlan{0, kUntilEnded}; }, 1 * data::kMicrosPerMilli});
  WallClock clock;
  WorkerPoolOptions options = small_pool();
  options.lease_token = "pool-token";
  options.lease = {100 * data::kMicrosPerMilli, 50 * data::kMicrosPerMilli, 100 * data::kMicrosPerMilli};
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(), options, clock);
  ASSERT_TRUE(poll_until(cluster, [&] { return cluster.status().pods["Running"] == 2; }));
  httplib::Client worker("127.0.0.1", cluster.lease_port());
  worker.set_bearer_token_auth("pool-token");
  int items = 0;
  auto lease_as = [&](const std::string& name) {
    cluster.submit(test_support::loose_submission(items + 1, plan()[items], 1, "w000"));
    ++items;
    auto answer = worker.Post("/v1/lease", json{{"worker", name}}.dump(), "application/json");
    return answer && answer->status == 200 ? json::parse(answer->body)["lease"].value("id", "") : "";
  };
  auto state_of = [&](const std::string& name) {
    std::string state;
    for (const LostWorker& w : cluster.status().lost) {
      if (w.worker == name) state = w.state;
    }
    return state;
  };
  auto settled = [&](const std::string& name) {
    return poll_until(cluster, [&] {
      const std::string state = state_of(name);
      return !state.empty() && state != "lost" && state != "deleting";
    });
  };

  ASSERT_NE(lease_as("pool-pool-9-0"), "");  // no such pod: never acted on
  // A late heartbeat: the lease is gone (410) but its worker came back, its pod kept.
  const std::string late = lease_as("pool-pool-0-0");
  ASSERT_NE(late, "");
  ASSERT_TRUE(poll_until(cluster, [&] { return cluster.status().leases.expired == 2; }));
  auto beat = worker.Post(("/v1/leases/" + late + "/heartbeat").c_str(), "{}", "application/json");
  ASSERT_TRUE(beat);
  EXPECT_EQ(beat->status, 410);
  ASSERT_TRUE(settled("pool-pool-0-0"));
  EXPECT_EQ(state_of("pool-pool-0-0"), "came back");
  EXPECT_EQ(state_of("pool-pool-9-0"), "lost");
  EXPECT_TRUE(has_pod(server, "pool-pool-0-0"));

  // Named by its hostname, JOB-INDEX: its pod is found, and deleted.
  ASSERT_NE(lease_as("pool-pool-1"), "");
  ASSERT_TRUE(settled("pool-pool-1"));
  EXPECT_EQ(state_of("pool-pool-1"), "deleted");
  EXPECT_FALSE(has_pod(server, "pool-pool-1-0"));
  EXPECT_EQ(cluster.status().lost.back().pod, "pool-pool-1-0");

  // Refused: said, with the server's reason; then the next item waits with nobody to take it.
  server.inject_errors(1, 403, 0, "DELETE");
  ASSERT_NE(lease_as("pool-pool-0-0"), "");  // lost a second time
  ASSERT_TRUE(poll_until(cluster, [&] {
    const std::vector<LostWorker> lost = cluster.status().lost;
    return lost.size() == 4 && lost.back().state != "lost" && lost.back().state != "deleting";
  }));
  const LostWorker refused = cluster.status().lost.back();
  EXPECT_EQ(refused.state, "refused");
  EXPECT_NE(refused.error.find("403"), std::string::npos) << refused.error;
  EXPECT_TRUE(has_pod(server, "pool-pool-0-0"));
  EXPECT_EQ(cluster.status().trouble, "");
  cluster.submit(test_support::loose_submission(items + 1, plan()[items], 1, "w000"));
  ASSERT_TRUE(poll_until(cluster, [&] { return !cluster.status().trouble.empty(); }));
  const std::string trouble = cluster.status().trouble;
  EXPECT_EQ(trouble.find("work has waited "), 0u) << trouble;
  EXPECT_NE(trouble.find(" with no worker of the pool left to take it, and lost workers could not be replaced: "
                         "pool-pool-9-0 (no such pod of the pool), pool-pool-0-0 (" + refused.error +
                         "); delete their pods (or the Job pool-pool) and resume the run"),
            std::string::npos)
      << trouble;
}

}  // namespace
}  // namespace millrace::cluster_adapter
