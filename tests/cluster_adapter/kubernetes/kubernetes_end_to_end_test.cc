// End to end, job-per-item, against the loopback API test server, with the real scheduler
// core (job-per-item policy, K = 8), the wall clock and real-run event loop, and the run
// recorded in a trace store: 200 ranges with injected 500s, 503s and 429s, a dropped watch, a
// 410 Gone inside a watch stream and 5% of the Jobs failing on their first attempt.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>

#include "cluster_adapter/kubernetes/kubernetes_cluster.h"
#include "cluster_adapter/realtime/real_run_loop.h"
#include "cluster_adapter/realtime/run_recorder.h"
#include "cluster_adapter/realtime/wall_clock.h"
#include "data/trace_store.h"
#include "scheduler/scheduler.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

constexpr int kItems = 200;
constexpr int kCap = 8;
constexpr int kKeepSucceeded = 5;
constexpr int kKeepFailed = 3;

// Every 20th item's first attempt exits 1 (5%); pods wait and run a few milliseconds.
PodPlan plan(const json& job) {
  int index = std::stoi(job["metadata"]["labels"]["millrace.io/item"].get<std::string>().substr(1));
  int attempt = std::stoi(job["metadata"]["labels"]["millrace.io/attempt"].get<std::string>());
  PodPlan p;
  p.pending = (index % 3) * data::kMicrosPerMilli;
  p.running = (4 + index % 7) * data::kMicrosPerMilli;
  p.exit_code = index % 20 == 7 && attempt == 1 ? 1 : 0;
  return p;
}

TEST(KubernetesEndToEndOnLoopbackServer, SchedulerRunsTwoHundredRangesOnceUnderFaultsWithinCapAndHistory) {
  namespace fs = std::filesystem;
  const test_support::ScratchDir scratch;
  const fs::path db = scratch.path() / "k8s-e2e.db";
  FakeApiServer server({plan, 1 * data::kMicrosPerMilli});
  std::vector<data::WorkItem> items;
  for (int i = 0; i < kItems; ++i) {
    data::WorkItem item;
    item.id = "r";
    item.id += std::to_string(i);
    item.range = data::Range{1000 + i * 64, 64};
    items.push_back(item);
  }
  data::TraceStore store = data::TraceStore::open(db.string());
  data::Run run;
  run.name = "e2e";
  run.source = data::RunSource::kReal;
  run.policy = "job-per-item";
  std::int64_t run_id = store.add_run(run, items, {});
  StoreBacklog writes(store);
  RunRecorder recorder(writes, run_id, items, {});

  WallClock clock;
  KubernetesClusterOptions options;
  options.run = "e2e";
  options.max_concurrency = kCap;
  options.keep_succeeded = kKeepSucceeded;
  options.keep_failed = kKeepFailed;
  options.active_deadline_seconds = 600;
  options.backoff = fast_backoff();
  KubernetesCluster cluster(KubeClient(test_server_config(server), fast_backoff()), test_job_template(), options,
                            clock);
  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.plan_name = "e2e";
  scheduler_options.policy = "job-per-item";
  scheduler_options.params.max_in_flight = kCap;
  scheduler_options.retry.max_attempts = 3;
  scheduler::Scheduler scheduler(items, scheduler_options, cluster, clock);
  int succeeded = 0;
  scheduler.set_observer([&](scheduler::AttemptHandle, const data::Attempt& attempt) {
    recorder.observe(attempt);
    succeeded += attempt.outcome == data::Outcome::kSucceeded;
  });

  // Faults, each once, at points along the run.
  std::vector<std::pair<int, std::function<void()>>> faults = {
      {20, [&] { server.inject_errors(4, 500); }},
      {60, [&] { server.drop_watches(); }},
      {100, [&] { server.expire_watches(); }},
      {140, [&] { server.inject_errors(3, 429, 0); }},
      {170, [&] { server.inject_errors(2, 503); }},
  };
  size_t next_fault = 0;
  auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // hang guard
  scheduler.start();
  RealRunLoop loop(clock, cluster, 20 * data::kMicrosPerMilli);
  loop.run_until([&] { return scheduler.finished() || std::chrono::steady_clock::now() > give_up_at; },
                 [&] {
                   if (next_fault < faults.size() && succeeded >= faults[next_fault].first) {
                     faults[next_fault++].second();
                   }
                 });
  ASSERT_TRUE(scheduler.finished()) << succeeded << " items succeeded";
  EXPECT_FALSE(scheduler.run_failed());
  auto settled = [&] {
    int complete = 0, failed = 0;
    for (const auto& job : server.objects("jobs")) {
      for (const auto& c : job["status"].value("conditions", json::array())) {
        complete += c["type"] == "Complete";
        failed += c["type"] == "Failed";
      }
    }
    return complete <= kKeepSucceeded && failed <= kKeepFailed;
  };
  ASSERT_TRUE(poll_until(cluster, settled));

  EXPECT_EQ(next_fault, faults.size());
  std::map<std::string, int> succeeded_per_item;
  int failed_attempts = 0;
  for (const auto& attempt : store.attempts(run_id)) {
    if (attempt.outcome == data::Outcome::kSucceeded) {
      ++succeeded_per_item[attempt.item_id];
    } else {
      ++failed_attempts;
      EXPECT_EQ(attempt.failure_reason, "exit") << attempt.item_id;
      EXPECT_EQ(std::stoi(attempt.item_id.substr(1)) % 20, 7) << attempt.item_id;
    }
  }
  ASSERT_EQ(succeeded_per_item.size(), static_cast<size_t>(kItems));
  for (const auto& [item, count] : succeeded_per_item) EXPECT_EQ(count, 1) << item;
  EXPECT_EQ(failed_attempts, kItems / 20);
  FakeApiRecord record = server.record();
  EXPECT_LE(record.max_unfinished_jobs, kCap);
  EXPECT_EQ(record.jobs_created, kItems + kItems / 20);
  EXPECT_EQ(record.deletes_without_policy, 0);
  EXPECT_EQ(record.orphaned_pods, 0);
  EXPECT_GE(record.injected_errors_served, 9);
  EXPECT_GE(cluster.status().lists, 2);  // the 410 forced a re-list
  EXPECT_TRUE(cluster.status().api.reachable);
}

}  // namespace
}  // namespace millrace::cluster_adapter
