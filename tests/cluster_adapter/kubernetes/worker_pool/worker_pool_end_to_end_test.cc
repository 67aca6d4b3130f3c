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
  EXPECT_EQ(pool.workers_started(), kWorkers);

  ASSERT_TRUE(cluster.shut_down(true, 10 * data::kMicrosPerSecond));
  ASSERT_TRUE(poll_until(cluster, [&] { return server.objects("jobs").empty() && server.objects("pods").empty(); }));
  EXPECT_EQ(server.record().deletes_without_policy, 0);
  EXPECT_EQ(server.record().orphaned_pods, 0);
  pool.release_hung();
  ASSERT_TRUE(poll_until(cluster, [&] { return pool.late_completion_status() != 0; }));
  EXPECT_EQ(pool.late_completion_status(), 410);
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

}  // namespace
}  // namespace millrace::cluster_adapter
