// KubernetesCluster against the loopback API test server: events exactly once per attempt,
// 409 AlreadyExists taken as success, the cap counted from the adapter's own records, history
// limits oldest first with propagationPolicy Background, re-list on 410, a dropped watch, an
// unreachable API, unschedulable pods, cancel and re-attach.
#include "cluster_adapter/kubernetes/kubernetes_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

data::WorkItem range_item(int i) {
  data::WorkItem item;
  item.id = "r";
  item.id += std::to_string(i);
  item.range = data::Range{i * 100, 100};
  return item;
}

class KubernetesClusterOnLoopbackServer : public ::testing::Test {
 protected:
  explicit KubernetesClusterOnLoopbackServer(FakeApiServerOptions server_options = {}) : server_(std::move(server_options)) {
    for (int i = 0; i < 20; ++i) items_.push_back(range_item(i));
  }

  std::unique_ptr<KubernetesCluster> make_cluster(KubernetesClusterOptions options = {}) {
    options.run = options.run.empty() ? "run-1" : options.run;
    options.backoff = fast_backoff();
    auto cluster = std::make_unique<KubernetesCluster>(KubeClient(test_server_config(server_), fast_backoff()),
                                                       test_job_template(), options, clock_);
    cluster->set_listener(&listener_);
    return cluster;
  }

  scheduler::Submission submission(int index, int attempt = 1) {
    return test_support::loose_submission(static_cast<scheduler::AttemptHandle>(index * 10 + attempt), items_[index],
                                          attempt);
  }

  FakeApiServer server_;
  SteadyTestClock clock_;
  RecordingListener listener_;
  std::vector<data::WorkItem> items_;
};

TEST_F(KubernetesClusterOnLoopbackServer, SucceededJobReportsStartedThenSucceededOnce) {
  auto cluster = make_cluster();
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 1; }));
  for (int i = 0; i < 5; ++i) cluster->poll(5 * data::kMicrosPerMilli);
  ASSERT_EQ(listener_.events.size(), 2u);
  EXPECT_EQ(listener_.events[0].kind, "started");
  EXPECT_EQ(listener_.events[0].event.worker, "run-1-r0-a1-pod");
  EXPECT_EQ(listener_.events[1].kind, "succeeded");
  EXPECT_EQ(listener_.events[1].event.handle, 1u);
  EXPECT_EQ(cluster->status().in_flight, 0);
}

// The placement is on this process's clock, between the submission and the start seen here:
// the server's own span from binding to running (whole seconds) taken back from the start, or,
// when the Job tells its pod ready before the pod's own update comes (a busy machine), when the
// pod was first seen bound. Never the server's clock (the old fallback read the server's epoch
// time as ours: placed 1,796,504,212 s into a run started 62 s before, once in ~30 runs on a
// loaded machine).
TEST_F(KubernetesClusterOnLoopbackServer, AStartedPodReportsItsNodeAndWhenItWasBoundToIt) {
  auto cluster = make_cluster();
  const data::Micros submitted = clock_.now();
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("started") == 1; }));
  const RecordedEvent* started = listener_.find("started", 1);
  ASSERT_NE(started, nullptr);
  EXPECT_EQ(started->event.node, "fake-node");
  ASSERT_TRUE(started->event.placed.has_value());
  EXPECT_LE(*started->event.placed, started->event.at);
  EXPECT_GE(*started->event.placed, submitted - data::kMicrosPerSecond);  // a whole-second span may round down
}

TEST_F(KubernetesClusterOnLoopbackServer, CreatedJobCarriesTheItemsParameters) {
  auto cluster = make_cluster();
  cluster->submit(submission(3, 2));
  ASSERT_TRUE(poll_until(*cluster, [&] { return !server_.objects("jobs").empty(); }));
  json job = server_.objects("jobs")[0];
  EXPECT_EQ(job["metadata"]["name"], "run-1-r3-a2");
  EXPECT_EQ(job["metadata"]["labels"]["millrace.io/attempt"], "2");
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  json args = job["spec"]["template"]["spec"]["containers"][0]["args"];
  EXPECT_EQ(args, json({"--range", "300", "100", "--end=400", "r3/2"}));
}

TEST_F(KubernetesClusterOnLoopbackServer, CreatedJobAsksForTheItemsRequests) {
  items_[4].requests = {{"cpu", 250}, {"memory", 512LL * 1024 * 1024 * 1000}, {"nvidia.com/gpu", 1000}};
  auto cluster = make_cluster();
  cluster->submit(submission(4));
  cluster->submit(submission(5));
  ASSERT_TRUE(poll_until(*cluster, [&] { return server_.objects("jobs").size() == 2; }));
  for (const json& job : server_.objects("jobs")) {
    const json& container = job["spec"]["template"]["spec"]["containers"][0];
    if (job["metadata"]["name"] == "run-1-r4-a1") {
      EXPECT_EQ(container["resources"]["requests"],
                json({{"cpu", "250m"}, {"memory", "536870912"}, {"nvidia.com/gpu", "1"}}));
    } else {
      EXPECT_FALSE(container.contains("resources")) << container.dump();  // no requests: the template's
    }
  }
}

TEST_F(KubernetesClusterOnLoopbackServer, AlreadyExistingJobIsTakenAsTheAttemptNotADuplicate) {
  auto first = make_cluster();
  first->submit(submission(0));
  ASSERT_TRUE(poll_until(*first, [&] { return server_.record().jobs_created == 1; }));
  first.reset();
  listener_.events.clear();
  auto second = make_cluster();
  second->submit(submission(0));
  ASSERT_TRUE(poll_until(*second, [&] { return listener_.count("succeeded") == 1; }));
  // The second cluster learns of the Job either from its first list (no create sent) or from a
  // 409 to its create, as the threads run: either way one Job, one success, no failure.
  EXPECT_EQ(server_.record().jobs_created, 1);
  EXPECT_LE(server_.record().create_conflicts, 1);
  EXPECT_EQ(listener_.count("failed"), 0);
}

TEST_F(KubernetesClusterOnLoopbackServer, CreateRetriedAfterServerErrorsSucceedsOnce) {
  server_.inject_errors(3, 500);
  auto cluster = make_cluster();
  cluster->submit(submission(1));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 1; }));
  EXPECT_EQ(server_.record().jobs_created, 1);
  EXPECT_EQ(listener_.count("failed"), 0);
}

TEST_F(KubernetesClusterOnLoopbackServer, CapIsCountedFromOwnRecordsBeforeTheJobsAreActive) {
  KubernetesClusterOptions options;
  options.max_concurrency = 3;
  auto cluster = make_cluster(options);
  EXPECT_EQ(cluster->capacity(), 3);
  for (int i = 0; i < 3; ++i) cluster->submit(submission(i));
  EXPECT_EQ(cluster->status().in_flight, 3);  // nothing created yet, but three are in flight
  for (int i = 3; i < 10; ++i) cluster->submit(submission(i));  // beyond the cap: held back
  EXPECT_EQ(cluster->status().waiting, 7);
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 10; }));
  EXPECT_LE(server_.record().max_unfinished_jobs, 3);
  EXPECT_EQ(cluster->status().in_flight, 0);
}

class FailingPodsOnLoopbackServer : public KubernetesClusterOnLoopbackServer {
 protected:
  FailingPodsOnLoopbackServer()
      : KubernetesClusterOnLoopbackServer({[](const json& job) {
          std::string item = job["metadata"]["labels"]["millrace.io/item"];
          PodPlan plan;
          if (item == "r1") plan.exit_code = 3;
          if (item == "r2") plan.running = 10 * data::kMicrosPerSecond;
          if (item == "r4") {
            plan.pending = 10 * data::kMicrosPerSecond;
            plan.unschedulable_message = "0/3 nodes are available: 3 Insufficient cpu.";
          }
          if (item == "r5") {  // fits nowhere until a node arrives
            plan.pending = 1500 * data::kMicrosPerMilli;
            plan.unschedulable_message = "0/3 nodes are available: 3 Insufficient cpu.";
          }
          return plan;
        }, 2 * data::kMicrosPerMilli}) {}
};

TEST_F(FailingPodsOnLoopbackServer, FailedJobReportsTheExitCodeOnce) {
  auto cluster = make_cluster();
  cluster->submit(submission(1));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("failed") == 1; }));
  for (int i = 0; i < 5; ++i) cluster->poll(5 * data::kMicrosPerMilli);
  EXPECT_EQ(listener_.count("started"), 1);
  EXPECT_EQ(listener_.count("failed"), 1);
  const auto& failed = listener_.events.back().event;
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.reason, "exit");
}

// The time the pod was first said to fit nowhere is kept although the condition that told it is
// replaced when the pod is bound; a pod bound at once has none.
TEST_F(FailingPodsOnLoopbackServer, APodThatFitNowhereAtFirstReportsWhenItWasToldSo) {
  auto cluster = make_cluster();
  cluster->submit(submission(5));
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("started") == 2; }));
  const RecordedEvent* waited = listener_.find("started", 51);
  ASSERT_NE(waited, nullptr);
  ASSERT_TRUE(waited->event.unschedulable.has_value());
  ASSERT_TRUE(waited->event.placed.has_value());
  EXPECT_LE(*waited->event.unschedulable, *waited->event.placed);
  EXPECT_GE(*waited->event.placed - *waited->event.unschedulable, data::kMicrosPerSecond)
      << "bound 1.5 s after it was told it fits nowhere (whole seconds on the server)";
  EXPECT_EQ((waited->event.at - *waited->event.unschedulable) % data::kMicrosPerSecond, 0);
  const RecordedEvent* at_once = listener_.find("started", 1);
  ASSERT_NE(at_once, nullptr);
  EXPECT_FALSE(at_once->event.unschedulable.has_value());
}

TEST_F(FailingPodsOnLoopbackServer, DeadlineExceededIsReportedAsTimeout) {
  KubernetesClusterOptions options;
  options.active_deadline_seconds = 1;
  auto cluster = make_cluster(options);
  cluster->submit(submission(2));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("failed") == 1; }));
  EXPECT_EQ(listener_.events.back().event.reason, "timeout");
}

// A delete refused for good (RBAC without `delete`) is not retried, and stays shown as the API's
// last error while later creates go through (found against the real API server).
TEST_F(FailingPodsOnLoopbackServer, ForbiddenDeleteStaysShownWhileLaterCreatesSucceed) {
  KubernetesClusterOptions options;
  options.keep_succeeded = 0;
  auto cluster = make_cluster(options);
  server_.inject_errors(1, 403, 0, "DELETE");
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return cluster->status().api.rejections == 1; }));
  cluster->submit(submission(2));  // runs for 10 s: no delete of its Job hides the refusal
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("started", 21) == 1; }));
  for (int i = 0; i < 5; ++i) cluster->poll(5 * data::kMicrosPerMilli);
  EXPECT_TRUE(cluster->status().api.reachable);
  EXPECT_EQ(cluster->status().api.rejections, 1);
  EXPECT_NE(cluster->status().api.last_error.find("HTTP 403 Forbidden"), std::string::npos)
      << cluster->status().api.last_error;
}

TEST_F(FailingPodsOnLoopbackServer, CancelDeletesTheJobAndReportsCancelledOnce) {
  auto cluster = make_cluster();
  cluster->submit(submission(2));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("started") == 1; }));
  cluster->cancel(2 * 10 + 1);
  ASSERT_TRUE(poll_until(*cluster, [&] { return server_.objects("jobs").empty() && server_.objects("pods").empty(); }));
  EXPECT_EQ(listener_.count("failed"), 1);
  EXPECT_EQ(listener_.events.back().event.reason, "cancelled");
  EXPECT_EQ(server_.record().deletes_without_policy, 0);
  EXPECT_EQ(cluster->status().in_flight, 0);
}

TEST_F(FailingPodsOnLoopbackServer, PodPendingTooLongIsShownAsUnschedulable) {
  KubernetesClusterOptions options;
  options.unschedulable_after = 50 * data::kMicrosPerMilli;
  auto cluster = make_cluster(options);
  cluster->submit(submission(4));
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return !cluster->status().unschedulable.empty(); }));
  ASSERT_TRUE(poll_until(*cluster, [&] { return cluster->status().in_flight == 1; }));
  ASSERT_TRUE(poll_until(*cluster, [&] { return !cluster->status().unschedulable[0].reason.empty(); }));
  std::vector<UnschedulableAttempt> unschedulable = cluster->status().unschedulable;  // still holds its slot
  ASSERT_EQ(unschedulable.size(), 1u);
  EXPECT_EQ(unschedulable[0].job, "run-1-r4-a1");
  EXPECT_EQ(unschedulable[0].item, "r4");
  EXPECT_EQ(unschedulable[0].attempt, 1);
  EXPECT_EQ(unschedulable[0].pod, "run-1-r4-a1-pod");
  EXPECT_EQ(unschedulable[0].reason, "Unschedulable: 0/3 nodes are available: 3 Insufficient cpu.");
}

// 240 attempts through a cap of 4 with a history of 2 + 2 Jobs: the attempts followed never
// exceed the cap and the finished Jobs remembered stay near the history limits, all the way
// (they used to grow with every attempt of the run, each event rescanning them all).
TEST_F(KubernetesClusterOnLoopbackServer, WorkingSetsStayBoundedOverALongRun) {
  constexpr int kAttempts = 240;
  constexpr int kCap = 4;
  std::vector<data::WorkItem> items;
  for (int i = 0; i < kAttempts; ++i) items.push_back(range_item(i));
  KubernetesClusterOptions options;
  options.max_concurrency = kCap;
  options.keep_succeeded = 2;
  options.keep_failed = 2;
  auto cluster = make_cluster(options);
  int submitted = 0;
  int most_attempts = 0;
  int most_finished = 0;
  auto in_flight = [&] { return submitted - listener_.count("succeeded") - listener_.count("failed"); };
  ASSERT_TRUE(poll_until(*cluster, [&] {
    while (submitted < kAttempts && in_flight() < kCap) {
      cluster->submit(
          test_support::loose_submission(static_cast<scheduler::AttemptHandle>(submitted + 1), items[submitted], 1));
      ++submitted;
    }
    KubernetesClusterStatus status = cluster->status();
    most_attempts = std::max(most_attempts, status.tracked_attempts);
    most_finished = std::max(most_finished, status.tracked_finished_jobs);
    return listener_.count("succeeded") == kAttempts;
  }));
  EXPECT_LE(most_attempts, kCap);
  EXPECT_LE(most_finished, 2 + 2 + 4 * kCap);  // the history, the attempts just ended, deletes on their way
  EXPECT_EQ(listener_.count("failed"), 0);
  EXPECT_EQ(server_.record().jobs_created, kAttempts);
  RecordProperty("most_attempts_tracked", most_attempts);
  RecordProperty("most_finished_jobs_tracked", most_finished);
}

TEST_F(KubernetesClusterOnLoopbackServer, HistoryLimitsDeleteOldestFinishedJobsWithBackgroundPropagation) {
  KubernetesClusterOptions options;
  options.keep_succeeded = 2;
  options.max_concurrency = 1;
  auto cluster = make_cluster(options);
  for (int i = 0; i < 5; ++i) cluster->submit(submission(i));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 5 && server_.objects("jobs").size() == 2; }));
  std::vector<std::string> left;
  for (const auto& job : server_.objects("jobs")) left.push_back(job["metadata"]["name"]);
  EXPECT_EQ(left, (std::vector<std::string>{"run-1-r3-a1", "run-1-r4-a1"}));
  EXPECT_EQ(server_.record().deletes_without_policy, 0);
  ASSERT_TRUE(poll_until(*cluster, [&] { return server_.objects("pods").size() == 2; }));
  EXPECT_EQ(server_.record().orphaned_pods, 0);
}

TEST_F(KubernetesClusterOnLoopbackServer, GoneWatchIsFollowedByAReListWithoutLosingEvents) {
  auto cluster = make_cluster();
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 1; }));
  int lists_before = cluster->status().lists;
  server_.expire_watches();
  cluster->submit(submission(1));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 2; }));
  ASSERT_TRUE(poll_until(*cluster, [&] { return cluster->status().lists > lists_before; }));
  EXPECT_EQ(listener_.count("succeeded", 11), 1);
}

TEST_F(KubernetesClusterOnLoopbackServer, DroppedWatchReconnectsFromTheLastResourceVersion) {
  auto cluster = make_cluster();
  ASSERT_TRUE(poll_until(*cluster, [&] { return server_.record().watches_started >= 2; }));  // jobs and pods
  server_.drop_watches();
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 1; }));
  EXPECT_GE(cluster->status().watches, 2);
  EXPECT_EQ(cluster->status().lists, 1);
}

TEST_F(KubernetesClusterOnLoopbackServer, UnreachableApiIsShownAndTheRunResumes) {
  auto cluster = make_cluster();
  ASSERT_TRUE(poll_until(*cluster, [&] { return cluster->status().lists >= 1; }));
  server_.pause();
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return !cluster->status().api.reachable; }));
  EXPECT_NE(cluster->status().api.last_error.find("no response"), std::string::npos) << cluster->status().api.last_error;
  server_.resume();
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("succeeded") == 1; }));
  ASSERT_TRUE(poll_until(*cluster, [&] { return cluster->status().api.reachable; }));
  EXPECT_EQ(server_.record().jobs_created, 1);
}

TEST_F(KubernetesClusterOnLoopbackServer, AdoptReattachesToJobsLeftByACrashedRun) {
  auto before = make_cluster();
  before->submit(submission(0));
  before->submit(submission(1));
  ASSERT_TRUE(poll_until(*before, [&] { return server_.record().jobs_created == 2; }));
  before.reset();  // the scheduler "crashes" with both attempts in flight
  listener_.events.clear();

  auto after = make_cluster();
  auto existing = after->existing_jobs();
  ASSERT_EQ(existing.size(), 2u);
  EXPECT_EQ(existing[0].item_id, "r0");
  EXPECT_EQ(existing[0].attempt, 1);
  after->adopt(submission(0));
  after->adopt(submission(1));
  ASSERT_TRUE(poll_until(*after, [&] { return listener_.count("succeeded") == 2; }));
  EXPECT_EQ(server_.record().jobs_created, 2);
}

TEST_F(KubernetesClusterOnLoopbackServer, AdoptedJobMissingFromTheClusterIsReportedLost) {
  auto cluster = make_cluster();
  cluster->adopt(submission(5));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("failed") == 1; }));
  EXPECT_EQ(listener_.events.back().event.reason, "lost");
}

TEST_F(KubernetesClusterOnLoopbackServer, RejectedCreateFailsTheAttemptWithTheServersMessage) {
  server_.inject_errors(1, 403, 0, "POST");
  auto cluster = make_cluster();
  cluster->submit(submission(0));
  ASSERT_TRUE(poll_until(*cluster, [&] { return listener_.count("failed") == 1; }));
  EXPECT_NE(listener_.events.back().event.reason.find("create-rejected"), std::string::npos);
  EXPECT_NE(listener_.events.back().event.reason.find("Forbidden"), std::string::npos);
  EXPECT_EQ(listener_.count("started"), 0);
  EXPECT_EQ(cluster->status().in_flight, 0);
}

}  // namespace
}  // namespace millrace::cluster_adapter
