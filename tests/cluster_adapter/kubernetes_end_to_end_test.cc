// End to end, job-per-item, against the loopback API test server: 200 ranges at most 8 at a
// time, with injected 500s and 429s, a dropped watch, a 410 Gone inside a watch stream and 5%
// of the Jobs failing on their first attempt. A small driver plays the scheduler: it submits
// while the cluster has capacity and retries a failed item as a new attempt.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>

#include "cluster_adapter/kubernetes_cluster.h"
#include "tests/cluster_adapter/k8s_test_support.h"

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

// Plays the scheduler: a queue of items, retries as new attempts, one handle per attempt.
class Driver : public scheduler::ClusterListener {
 public:
  explicit Driver(const std::vector<data::WorkItem>& items) : items_(items) {
    for (int i = 0; i < static_cast<int>(items.size()); ++i) queue_.push_back({i, 1});
  }

  void submit_while_free(KubernetesCluster& cluster) {
    while (!queue_.empty() && cluster.capacity() > 0) {
      auto [index, attempt] = queue_.front();
      queue_.pop_front();
      scheduler::AttemptHandle handle = next_handle_++;
      running_[handle] = {index, attempt};
      cluster.submit({handle, &items_[index], attempt, std::nullopt});
    }
  }

  void on_started(const scheduler::AttemptEvent&) override {}
  void on_succeeded(const scheduler::AttemptEvent& e) override {
    ++succeeded_[running_.at(e.handle).first];
    running_.erase(e.handle);
  }
  void on_failed(const scheduler::AttemptEvent& e) override {
    auto [index, attempt] = running_.at(e.handle);
    running_.erase(e.handle);
    failed_.push_back({index, e.reason});
    queue_.push_back({index, attempt + 1});
  }
  void on_capacity_changed(int, data::Micros) override {}

  int succeeded_items() const { return static_cast<int>(succeeded_.size()); }
  const std::map<int, int>& succeeded() const { return succeeded_; }
  const std::vector<std::pair<int, std::string>>& failed() const { return failed_; }
  bool done() const { return queue_.empty() && running_.empty(); }

 private:
  const std::vector<data::WorkItem>& items_;
  std::deque<std::pair<int, int>> queue_;
  std::map<scheduler::AttemptHandle, std::pair<int, int>> running_;
  scheduler::AttemptHandle next_handle_ = 1;
  std::map<int, int> succeeded_;
  std::vector<std::pair<int, std::string>> failed_;
};

TEST(KubernetesEndToEndOnTestServer, TwoHundredRangesSucceedOnceUnderFaultsWithinCapAndHistory) {
  FakeApiServer server({plan, 1 * data::kMicrosPerMilli});
  std::vector<data::WorkItem> items;
  for (int i = 0; i < kItems; ++i) {
    data::WorkItem item;
    item.id = "r";
    item.id += std::to_string(i);
    item.range = data::Range{1000 + i * 64, 64};
    items.push_back(item);
  }
  SteadyTestClock clock;
  KubernetesClusterOptions options;
  options.run = "e2e";
  options.max_concurrency = kCap;
  options.keep_succeeded = kKeepSucceeded;
  options.keep_failed = kKeepFailed;
  options.active_deadline_seconds = 600;
  options.backoff = fast_backoff();
  KubernetesCluster cluster(KubeClient(test_server_config(server), fast_backoff()), test_job_template(), options,
                            clock);
  Driver driver(items);
  cluster.set_listener(&driver);

  // Faults, each once, at points along the run.
  std::vector<std::pair<int, std::function<void()>>> faults = {
      {20, [&] { server.inject_errors(4, 500); }},
      {60, [&] { server.drop_watches(); }},
      {100, [&] { server.expire_watches(); }},
      {140, [&] { server.inject_errors(3, 429, 0); }},
      {170, [&] { server.inject_errors(2, 503); }},
  };
  size_t next_fault = 0;
  for (int step = 0; step < 20000 && !driver.done(); ++step) {
    driver.submit_while_free(cluster);
    cluster.poll(5 * data::kMicrosPerMilli);
    if (next_fault < faults.size() && driver.succeeded_items() >= faults[next_fault].first) {
      faults[next_fault++].second();
    }
  }
  ASSERT_TRUE(driver.done()) << driver.succeeded_items() << " items succeeded";
  // Let the history clean-up finish.
  auto settled = [&] {
    int succeeded = 0, failed = 0;
    for (const auto& job : server.objects("jobs")) {
      for (const auto& c : job["status"].value("conditions", json::array())) {
        succeeded += c["type"] == "Complete";
        failed += c["type"] == "Failed";
      }
    }
    return succeeded <= kKeepSucceeded && failed <= kKeepFailed;
  };
  ASSERT_TRUE(poll_until(cluster, settled));

  EXPECT_EQ(next_fault, faults.size());
  ASSERT_EQ(driver.succeeded_items(), kItems);
  for (const auto& [index, count] : driver.succeeded()) EXPECT_EQ(count, 1) << "item " << index;
  ASSERT_EQ(driver.failed().size(), static_cast<size_t>(kItems / 20));
  for (const auto& [index, reason] : driver.failed()) {
    EXPECT_EQ(index % 20, 7);
    EXPECT_EQ(reason, "exit");
  }
  FakeApiRecord record = server.record();
  EXPECT_LE(record.max_unfinished_jobs, kCap);
  EXPECT_EQ(record.jobs_created, kItems + kItems / 20);
  EXPECT_EQ(record.deletes_without_policy, 0);
  EXPECT_EQ(record.orphaned_pods, 0);
  EXPECT_GE(record.injected_errors_served, 9);
  EXPECT_GE(cluster.status().lists, 2);  // the 410 forced a re-list
  EXPECT_TRUE(cluster.status().api_reachable);
}

}  // namespace
}  // namespace millrace::cluster_adapter
