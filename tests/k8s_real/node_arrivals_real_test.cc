// The node arrivals watch (cluster_adapter/kubernetes/node_arrivals.h) against a real
// kube-apiserver v1.20 with RBAC (RealApiServer fixture), as the user `millrace`: without the
// documented ClusterRole the server refuses nodes and the watch says arrivals are not recorded and
// why; with it, a Node created while the watch runs is an arrival with its pool and creation time,
// and the node the fake kubelet registered before is not.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <unistd.h>

#include "cluster_adapter/kubernetes/node_arrivals.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/k8s_real/real_apiserver.h"

namespace millrace::k8s_real {
namespace {

using cluster_adapter::gather_until;
using cluster_adapter::KubeClient;
using cluster_adapter::NodeArrivalNews;
using cluster_adapter::NodeArrivalWatch;
using nlohmann::json;

TEST(RealApiServerNodes, TheDocumentedClusterRoleLetsARunRecordNodeArrivalsAndWithoutItTheRunSaysWhy) {
  RealApiServer server(MILLRACE_K8S_STATE_DIR);
  const std::string ns = server.create_namespace("nodes", json::object());
  cluster_adapter::SteadyTestClock clock;
  {
    NodeArrivalWatch refused(KubeClient(server.config("millrace", ns), cluster_adapter::fast_backoff()),
                             cluster_adapter::fast_backoff(), clock);
    const NodeArrivalNews news = gather_until(refused, [](const NodeArrivalNews& n) { return !n.unrecorded.empty(); });
    EXPECT_NE(news.unrecorded.find("the API server refused to list or watch nodes (HTTP 403 Forbidden)"),
              std::string::npos)
        << news.unrecorded;
  }
  json role = documented_role("ClusterRole");
  const std::string role_name = "millrace-node-reader-" + std::to_string(getpid());
  role["metadata"]["name"] = role_name;
  server.grant_nodes_to_millrace(role);
  const std::string node = "arrival-" + std::to_string(getpid());
  {
    NodeArrivalWatch watch(KubeClient(server.config("millrace", ns), cluster_adapter::fast_backoff()),
                           cluster_adapter::fast_backoff(), clock);
    for (int i = 0; i < 3000 && !watch.listed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(watch.listed());
    server.admin().call("POST", "/api/v1/nodes",
                        json{{"apiVersion", "v1"}, {"kind", "Node"},
                             {"metadata", {{"name", node}, {"labels", {{"karpenter.sh/nodepool", "spot"}}}}}});
    const NodeArrivalNews news = gather_until(watch, [](const NodeArrivalNews& n) { return !n.nodes.empty(); });
    ASSERT_EQ(news.nodes.size(), 1u) << "the kubelet's node, there before, is no arrival";
    EXPECT_EQ(news.nodes[0].node, node);
    EXPECT_EQ(news.nodes[0].pool, "spot");
    EXPECT_TRUE(news.nodes[0].created.has_value());
    EXPECT_EQ(news.unrecorded, "");
  }
  server.admin().call("DELETE", "/api/v1/nodes/" + node);
  server.revoke_nodes_from_millrace(role_name);
  server.delete_namespace(ns);
}

}  // namespace
}  // namespace millrace::k8s_real
