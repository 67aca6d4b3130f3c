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

TEST(WorkerPoolOnLoopbackServer, EveryRangeSucceedsOnceAnExpiredLeaseIsRunAgainElsewhereAndTheJobIsDeleted) {
  FakeApiServer server({[](const json&) { return PodPlan{5 * data::kMicrosPerMilli, kUntilEnded}; },
                        1 * data::kMicrosPerMilli});
  SimulatedPool pool(server, {.hang_index = 1, .hang_on_lease = 2, .work_ms_per_100 = 8});
  WallClock clock;
  WorkerPoolOptions options;
  options.run = "pool";
  options.workers = kWorkers;
  options.lease_host = "127.0.0.1";
  options.lease = {300 * data::kMicrosPerMilli, 50 * data::kMicrosPerMilli, 200 * data::kMicrosPerMilli};
  options.backoff = fast_backoff();
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(), options, clock);
  EXPECT_EQ(cluster.lease_url(), "http://127.0.0.1:" + std::to_string(cluster.lease_port()));

  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.plan_name = "pool";
  scheduler_options.policy = "fixed-pool";
  scheduler_options.params.workers = kWorkers;
  scheduler_options.retry.max_attempts = 3;
  scheduler::Scheduler scheduler(plan(), scheduler_options, cluster, clock);
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
  // Its pod was deleted, once the lease expired, and its Job made a new one for the index.
  ASSERT_EQ(cluster.status().replaced.size(), 1u);
  EXPECT_EQ(cluster.status().replaced[0].pod, pool.hung_pod());
  EXPECT_TRUE(poll_until(cluster, [&] { return cluster.status().replaced[0].state == "deleted"; }));
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
  WorkerPoolOptions options;
  options.run = "pool";
  options.workers = kWorkers;
  options.lease_host = "127.0.0.1";
  options.lease = {300 * data::kMicrosPerMilli, 50 * data::kMicrosPerMilli, 200 * data::kMicrosPerMilli};
  options.backoff = fast_backoff();
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(), options, clock);
  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.plan_name = "pool";
  scheduler_options.policy = "fixed-pool";
  scheduler_options.params.workers = kWorkers;
  scheduler_options.retry.max_attempts = 3;
  scheduler::Scheduler scheduler(plan(), scheduler_options, cluster, clock);
  auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(30);  // a stall guard
  scheduler.start();
  RealRunLoop loop(clock, cluster, 20 * data::kMicrosPerMilli);
  loop.run_until([&] { return scheduler.finished() || std::chrono::steady_clock::now() > give_up_at; }, [] {});
  const WorkerPoolStatus status = cluster.status();
  ASSERT_TRUE(scheduler.finished()) << "stalled: " << to_json(status, clock.now()).dump();
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
  std::vector<std::string> replaced;
  for (const ReplacedWorker& worker : status.replaced) replaced.push_back(worker.pod);
  EXPECT_EQ(replaced, hung);
  for (const std::string& pod : hung) EXPECT_FALSE(has_pod(server, pod)) << pod;
  for (const std::string& pod : hung) {
    EXPECT_TRUE(poll_until(cluster, [&] { return has_pod(server, next_pod_of_its_index(pod)); })) << pod;
  }
  ASSERT_TRUE(poll_until(cluster, [&] {
    const auto replaced = cluster.status().replaced;
    return !replaced.empty() && replaced.back().state == "deleted";
  }));
  const json shown = to_json(cluster.status(), clock.now());
  ASSERT_EQ(shown["workers_replaced"].size(), 2u);
  EXPECT_EQ(shown["workers_replaced"][0]["pod"], hung[0]);
  EXPECT_EQ(shown["workers_replaced"][0]["why"], "its lease expired");
  EXPECT_EQ(shown["workers_replaced"][1]["state"], "deleted");
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

// Only a pod the pool's watch shows running is ever deleted: a lease whose worker names no pod
// of the pool expires and nothing else happens; one naming a running pool pod gets it replaced.
// A refused delete is told on the status, with the API server's reason.
TEST(WorkerPoolOnLoopbackServer, OnlyARunningPodOfThePoolIsDeletedWhenItsWorkersLeaseExpires) {
  FakeApiServer server({[](const json&) { return PodPlan{0, kUntilEnded}; }, 1 * data::kMicrosPerMilli});
  WallClock clock;
  WorkerPoolOptions options = small_pool();
  options.lease_token = "pool-token";
  options.lease = {100 * data::kMicrosPerMilli, 50 * data::kMicrosPerMilli, 100 * data::kMicrosPerMilli};
  WorkerPoolCluster cluster(KubeClient(test_server_config(server), fast_backoff()), pool_template(), options, clock);
  ASSERT_TRUE(poll_until(cluster, [&] { return cluster.status().pods["Running"] == 2; }));
  httplib::Client worker("127.0.0.1", cluster.lease_port());
  worker.set_bearer_token_auth("pool-token");
  auto lease_as = [&](const std::string& name, int item) {
    cluster.submit(test_support::loose_submission(item + 1, plan()[item], 1, "w000"));
    auto answer = worker.Post("/v1/lease", json{{"worker", name}}.dump(), "application/json");
    return answer && answer->status == 200 && json::parse(answer->body)["action"] == "work";
  };

  ASSERT_TRUE(lease_as("pool-pool-9-0", 0));  // no such pod: never acted on
  ASSERT_TRUE(poll_until(cluster, [&] { return cluster.status().leases.expired == 1; }));
  EXPECT_TRUE(cluster.status().replaced.empty());
  EXPECT_EQ(server.objects("pods").size(), 2u);

  const std::string pod = server.objects("pods")[0]["metadata"]["name"];
  server.inject_errors(1, 403, 0, "DELETE");
  ASSERT_TRUE(lease_as(pod, 1));
  ASSERT_TRUE(poll_until(cluster, [&] {
    auto replaced = cluster.status().replaced;
    return !replaced.empty() && replaced[0].state == "refused";
  }));
  EXPECT_NE(cluster.status().replaced[0].error.find("403"), std::string::npos) << cluster.status().replaced[0].error;
  EXPECT_TRUE(has_pod(server, pod));
}

}  // namespace
}  // namespace millrace::cluster_adapter
