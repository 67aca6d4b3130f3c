// The node arrivals watch (cluster_adapter/kubernetes/node_arrivals.h) against the loopback API
// test server: the nodes there at the start are no arrivals, a node added mid-run is one (with its
// pool and creation time), and its ready time follows once it is Ready; a server that forbids nodes
// (RBAC without them) leaves the arrivals unrecorded with the reason and no credentials; objects of
// the wrong shape are skipped, never a crash. Deleted nodes depart: an arrival and a spot node
// there at the start (recorded for that), with their capacity type from the clouds' labels.
#include "cluster_adapter/kubernetes/node_arrivals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "cluster_adapter/kubernetes/job_view.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

// Waits until `done` holds or ~30 s pass (a hang guard, not a timing assertion).
template <typename Done>
bool wait_until(Done done) {
  for (int i = 0; i < 3000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

TEST(NodeArrivalWatch, ANodeAddedDuringTheRunArrivesWithItsPoolAndItsReadyTimeFollows) {
  FakeApiServer server;
  server.add_node("before-1", "default-pool");
  server.add_node("before-2");
  SteadyTestClock clock;
  NodeArrivalWatch watch(KubeClient(test_server_config(server)), fast_backoff(), clock);
  ASSERT_TRUE(wait_until([&] { return server.record().watches_started >= 1; }));
  EXPECT_FALSE(watch.take_news().has_value()) << "the nodes there at the start are no arrivals";

  // Times come on the run's clock: the server's (whole seconds) shifted by the least difference
  // seen, so never after the node was seen here, and at most a second before it was added.
  const data::Micros added_at = clock.now();
  server.add_node("scaled-1", "gpu-pool");
  NodeArrivalNews news = gather_until(watch, [](const NodeArrivalNews& n) { return !n.nodes.empty(); });
  ASSERT_EQ(news.nodes.size(), 1u);
  EXPECT_EQ(news.nodes[0].node, "scaled-1");
  EXPECT_EQ(news.nodes[0].pool, "gpu-pool");
  ASSERT_TRUE(news.nodes[0].created.has_value());
  EXPECT_GE(*news.nodes[0].created, added_at - data::kMicrosPerSecond);
  EXPECT_LE(*news.nodes[0].created, clock.now());
  EXPECT_FALSE(news.nodes[0].ready.has_value()) << "not Ready yet";
  EXPECT_EQ(news.unrecorded, "");

  server.make_node_ready("scaled-1");
  news = gather_until(watch, [](const NodeArrivalNews& n) { return !n.nodes.empty() && n.nodes.back().ready; });
  ASSERT_FALSE(news.nodes.empty());
  ASSERT_TRUE(news.nodes.back().ready.has_value());
  ASSERT_TRUE(news.nodes.back().created.has_value());
  EXPECT_GE(*news.nodes.back().created, added_at - data::kMicrosPerSecond);
  EXPECT_LE(*news.nodes.back().ready, clock.now());
  EXPECT_GE(*news.nodes.back().ready, *news.nodes.back().created);
  EXPECT_EQ(watch.arrivals(), 1u);
  EXPECT_EQ(watch.skipped(), 0u);
}

TEST(NodeArrivalWatch, ForbiddenNodesLeaveArrivalsUnrecordedWithTheReasonAndNoCredentials) {
  FakeApiServerOptions options;
  options.forbidden = {"nodes"};
  FakeApiServer server(options);
  SteadyTestClock clock;
  NodeArrivalWatch watch(KubeClient(test_server_config(server)), fast_backoff(), clock);
  const NodeArrivalNews news = gather_until(watch, [](const NodeArrivalNews& n) { return !n.unrecorded.empty(); });
  EXPECT_EQ(news.unrecorded,
            "the API server refused to list or watch nodes (HTTP 403 Forbidden): the run's account needs "
            "get/list/watch on nodes (deploy/rbac.yaml, ClusterRole millrace-node-reader)");
  EXPECT_EQ(news.unrecorded.find("test-token"), std::string::npos);
  EXPECT_TRUE(news.nodes.empty());
}

TEST(NodeArrivalWatch, AnswersOfTheWrongShapeAreSkippedNotACrash) {
  FakeApiServer server;
  server.add_node("before");
  SteadyTestClock clock;
  NodeArrivalWatch watch(KubeClient(test_server_config(server)), fast_backoff(), clock);
  ASSERT_TRUE(wait_until([&] { return server.record().watches_started >= 1; }));
  server.answer_malformed(true);
  ASSERT_TRUE(wait_until([&] {  // each dropped watch makes the reflector ask again: lists, watches
    server.drop_watches();
    return server.record().malformed_answers >= 4;
  }));
  server.answer_malformed(false);
  server.drop_watches();  // a stream opened while answers were malformed stays so
  server.add_node("after", "pool-b");
  const NodeArrivalNews news = gather_until(watch, [](const NodeArrivalNews& n) {
    return std::any_of(n.nodes.begin(), n.nodes.end(), [](const data::NodeArrival& a) { return a.node == "after"; });
  });
  EXPECT_TRUE(std::any_of(news.nodes.begin(), news.nodes.end(),
                          [](const data::NodeArrival& a) { return a.node == "after" && a.pool == "pool-b"; }));
}

TEST(NodeArrivalWatch, DeletedNodesDepartAndSpotNodesThereAtTheStartAreWatchedForIt) {
  FakeApiServer server;
  server.add_node("steady-0", "steady");
  server.add_node("spot-0", "cheap", {{"karpenter.sh/capacity-type", "spot"}});
  SteadyTestClock clock;
  NodeArrivalWatch watch(KubeClient(test_server_config(server)), fast_backoff(), clock);
  ASSERT_TRUE(wait_until([&] { return server.record().watches_started >= 1; }));
  NodeArrivalNews news = gather_until(watch, [](const NodeArrivalNews& n) { return !n.nodes.empty(); });
  ASSERT_EQ(news.nodes.size(), 1u) << "the spot node there at the start, not the on-demand one";
  EXPECT_EQ(news.nodes[0].node, "spot-0");
  EXPECT_TRUE(news.nodes[0].present_at_start);
  EXPECT_EQ(news.nodes[0].capacity_type, "spot");
  EXPECT_FALSE(news.nodes[0].created.has_value()) << "watched from the run's start";
  EXPECT_EQ(watch.arrivals(), 0u);

  server.add_node("spot-1", "cheap", {{"eks.amazonaws.com/capacityType", "SPOT"}});
  news = gather_until(watch, [](const NodeArrivalNews& n) { return !n.nodes.empty(); });
  ASSERT_EQ(news.nodes.size(), 1u);
  EXPECT_EQ(news.nodes[0].capacity_type, "spot");
  EXPECT_FALSE(news.nodes[0].present_at_start);

  const data::Micros deleting_at = clock.now();
  server.delete_node("spot-0");
  server.delete_node("spot-1");
  server.delete_node("steady-0");  // there at the start, on-demand: not recorded
  news = gather_until(watch, [](const NodeArrivalNews& n) {
    return std::count_if(n.nodes.begin(), n.nodes.end(), [](const data::NodeArrival& a) { return a.departed; }) == 2;
  });
  std::map<std::string, data::NodeArrival> last;  // a node may be told more than once
  for (const data::NodeArrival& node : news.nodes) last[node.node] = node;
  ASSERT_EQ(last.size(), 2u);
  for (const auto& [name, node] : last) {
    ASSERT_TRUE(node.departed.has_value()) << name;
    EXPECT_GE(*node.departed, deleting_at);
    EXPECT_LE(*node.departed, clock.now());
  }
  EXPECT_EQ(watch.arrivals(), 1u);
}

TEST(ViewNode, ReadsTheCapacityTypeFromEachCloudsLabel) {
  const auto type_of = [](const char* label, const char* value) {
    const json node = {{"metadata", {{"name", "n"}, {"labels", {{label, value}}}}}};
    return view_node(node)->capacity_type;
  };
  EXPECT_EQ(type_of("karpenter.sh/capacity-type", "spot"), "spot");
  EXPECT_EQ(type_of("karpenter.sh/capacity-type", "on-demand"), "on-demand");
  EXPECT_EQ(type_of("eks.amazonaws.com/capacityType", "SPOT"), "spot");
  EXPECT_EQ(type_of("eks.amazonaws.com/capacityType", "ON_DEMAND"), "on-demand");
  EXPECT_EQ(type_of("cloud.google.com/gke-spot", "true"), "spot");
  EXPECT_EQ(type_of("kubernetes.azure.com/scalesetpriority", "spot"), "spot");
  EXPECT_EQ(type_of("kubernetes.azure.com/scalesetpriority", "regular"), "on-demand");
  EXPECT_EQ(type_of("node.kubernetes.io/instance-type", "m5.large"), "");
}

TEST(ViewNode, ReadsThePoolFromTheFirstLabelPresentAndLeavesMalformedTimesUnknown) {
  const json eks = json::parse(R"({"metadata": {"name": "n1", "creationTimestamp": "2026-12-05T10:00:00Z",
      "labels": {"node.kubernetes.io/instance-type": "m5.large", "eks.amazonaws.com/nodegroup": "ng-1"}},
      "status": {"conditions": [{"type": "MemoryPressure", "status": "False"},
                                {"type": "Ready", "status": "True", "lastTransitionTime": "2026-12-05T10:01:30Z"}]}})");
  const std::optional<data::NodeArrival> node = view_node(eks);
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->pool, "ng-1");
  ASSERT_TRUE(node->created && node->ready);
  EXPECT_EQ(*node->ready - *node->created, 90 * data::kMicrosPerSecond);
  const json typed = json::parse(R"({"metadata": {"name": "n2", "labels": {"node.kubernetes.io/instance-type": "m5.large"}}})");
  EXPECT_EQ(view_node(typed)->pool, "m5.large");
  const json odd = json::parse(R"({"metadata": {"name": "n3", "creationTimestamp": 7, "labels": ["x"]},
      "status": {"conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-12-05T10:01:30Z"}]}})");
  const std::optional<data::NodeArrival> unknown = view_node(odd);
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->pool, "");
  EXPECT_FALSE(unknown->created.has_value());
  EXPECT_FALSE(unknown->ready.has_value());
  for (const char* bad : {R"([])", R"({"metadata": {}})", R"({"metadata": {"name": ""}})", R"("node")", R"(null)"}) {
    EXPECT_FALSE(view_node(json::parse(bad)).has_value()) << bad;
  }
}

}  // namespace
}  // namespace millrace::cluster_adapter
