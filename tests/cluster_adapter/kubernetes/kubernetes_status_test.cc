// What a Kubernetes run shows the operator about its API and its pods, on the loopback API test
// server: an unreachable API with its failures in a row, retries and since when, cleared when it
// answers again (the last error kept); a refused call counted apart from retries; and how that
// state reads in the status JSON and the Prometheus metrics.
#include "cluster_adapter/kubernetes/kubernetes_status.h"

#include <gtest/gtest.h>

#include <memory>

#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

class KubernetesStatusOnLoopbackServer : public ::testing::Test {
 protected:
  KubernetesStatusOnLoopbackServer() {
    item_.id = "r0";
    item_.range = data::Range{0, 100};
    KubernetesClusterOptions options;
    options.run = "status";
    options.backoff = fast_backoff();
    cluster_ = std::make_unique<KubernetesCluster>(KubeClient(test_server_config(server_), fast_backoff()),
                                                   test_job_template(), options, clock_);
    cluster_->set_listener(&listener_);
  }

  FakeApiServer server_;
  SteadyTestClock clock_;
  RecordingListener listener_;
  data::WorkItem item_;
  std::unique_ptr<KubernetesCluster> cluster_;
};

TEST_F(KubernetesStatusOnLoopbackServer, UnreachableApiShowsFailuresInARowRetriesAndSinceWhenUntilItAnswers) {
  ASSERT_TRUE(poll_until(*cluster_, [&] { return cluster_->status().lists >= 1; }));
  EXPECT_TRUE(cluster_->status().api.reachable);
  EXPECT_EQ(cluster_->status().api.retries, 0);

  data::Micros paused_at = clock_.now();
  server_.pause();
  cluster_->submit(test_support::loose_submission(1, item_, 1));
  ASSERT_TRUE(poll_until(*cluster_, [&] {
    ApiHealthStatus api = cluster_->status().api;
    return !api.reachable && api.consecutive_failures >= 3 && api.failing.size() == 3;
  }));
  KubernetesClusterStatus down = cluster_->status();
  EXPECT_GE(down.api.unreachable_since, paused_at);
  EXPECT_GE(down.api.retries, down.api.consecutive_failures);
  std::vector<std::string> sources;
  for (const FailingSource& f : down.api.failing) {
    sources.push_back(f.source);
    EXPECT_GE(f.failures, 1) << f.source;
    EXPECT_NE(f.problem.find(server_.url()), std::string::npos) << f.problem;  // names the server
    EXPECT_NE(f.problem.find("no response"), std::string::npos) << f.problem;
  }
  EXPECT_EQ(sources, (std::vector<std::string>{"requests", "watch jobs", "watch pods"}));
  EXPECT_EQ(down.requests_pending, 1);  // the create, being retried

  data::Micros now = down.api.unreachable_since + 2 * data::kMicrosPerSecond;
  json shown = to_json(down, now);
  EXPECT_EQ(shown["kind"], "kubernetes");
  EXPECT_EQ(shown["api"]["reachable"], false);
  EXPECT_EQ(shown["api"]["unreachable_for_us"], 2 * data::kMicrosPerSecond);
  EXPECT_EQ(shown["api"]["consecutive_failures"], down.api.consecutive_failures);
  EXPECT_EQ(shown["api"]["retrying"].size(), 3u);
  EXPECT_EQ(shown["api"]["retrying"][0]["source"], "requests");
  EXPECT_EQ(shown["requests_pending"], 1);
  PrometheusWriter metrics;
  write_metrics(metrics, down, now);
  EXPECT_TRUE(has_line(metrics.text(), "millrace_kubernetes_api_reachable 0")) << metrics.text();
  EXPECT_TRUE(has_line(metrics.text(), "millrace_kubernetes_api_unreachable_seconds 2")) << metrics.text();
  EXPECT_TRUE(has_line(metrics.text(), "millrace_kubernetes_api_retries_total " + std::to_string(down.api.retries)));
  EXPECT_NE(metrics.text().find("millrace_kubernetes_api_failures_in_a_row{source=\"watch pods\"} "),
            std::string::npos);

  server_.resume();
  ASSERT_TRUE(poll_until(*cluster_, [&] { return listener_.count("succeeded") == 1; }));
  ASSERT_TRUE(poll_until(*cluster_, [&] { return cluster_->status().api.reachable; }));
  KubernetesClusterStatus up = cluster_->status();
  EXPECT_EQ(up.api.consecutive_failures, 0);
  EXPECT_TRUE(up.api.failing.empty());
  EXPECT_GE(up.api.retries, down.api.retries);  // a counter: never goes back
  EXPECT_NE(up.api.last_error.find("no response"), std::string::npos) << up.api.last_error;
  EXPECT_EQ(up.requests_pending, 0);
  json shown_up = to_json(up, clock_.now());
  EXPECT_FALSE(shown_up["api"].contains("unreachable_since_us"));
  PrometheusWriter metrics_up;
  write_metrics(metrics_up, up, clock_.now());
  EXPECT_TRUE(has_line(metrics_up.text(), "millrace_kubernetes_api_reachable 1"));
  EXPECT_TRUE(has_line(metrics_up.text(), "millrace_kubernetes_api_unreachable_seconds 0"));
}

TEST_F(KubernetesStatusOnLoopbackServer, RefusedCreateIsCountedAsARejectionNotAsAnUnreachableApi) {
  ASSERT_TRUE(poll_until(*cluster_, [&] { return cluster_->status().lists >= 1; }));
  server_.inject_errors(1, 403, 0, "POST");
  cluster_->submit(test_support::loose_submission(1, item_, 1));
  ASSERT_TRUE(poll_until(*cluster_, [&] { return listener_.count("failed") == 1; }));
  ApiHealthStatus api = cluster_->status().api;
  EXPECT_TRUE(api.reachable);
  EXPECT_EQ(api.retries, 0);
  EXPECT_EQ(api.rejections, 1);
  EXPECT_NE(api.last_error.find("requests: " + server_.url()), std::string::npos) << api.last_error;
  EXPECT_NE(api.last_error.find("HTTP 403 Forbidden"), std::string::npos) << api.last_error;
}

TEST(KubernetesStatusJson, UnschedulableAttemptIsListedWithItsItemPodAndTheSchedulersReason) {
  KubernetesClusterStatus status;
  status.unschedulable.push_back({"status-r0-a2", "r0", 2, "status-r0-a2-pod", 1'000'000,
                                  "Unschedulable: 0/3 nodes are available"});
  json shown = to_json(status, 7'500'000);
  ASSERT_EQ(shown["unschedulable"].size(), 1u);
  EXPECT_EQ(shown["unschedulable"][0],
            json({{"item", "r0"}, {"attempt", 2}, {"job", "status-r0-a2"}, {"pod", "status-r0-a2-pod"},
                  {"pending_since_us", 1'000'000}, {"pending_for_us", 6'500'000},
                  {"reason", "Unschedulable: 0/3 nodes are available"}}));
  PrometheusWriter metrics;
  write_metrics(metrics, status, 7'500'000);
  EXPECT_TRUE(has_line(metrics.text(), "millrace_kubernetes_unschedulable_attempts 1")) << metrics.text();
}

}  // namespace
}  // namespace millrace::cluster_adapter
