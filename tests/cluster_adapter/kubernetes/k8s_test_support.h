// Shared pieces of the Kubernetes adapter tests: a steady clock, the recording listener of
// tests/support, a client configuration for the loopback API test server, a small Job template,
// and waiting for a node arrivals watch's news.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster_adapter/kubernetes/job_template.h"
#include "cluster_adapter/kubernetes/kube_client.h"
#include "cluster_adapter/kubernetes/node_arrivals.h"
#include "scheduler/clock.h"
#include "scheduler/cluster.h"
#include "tests/cluster_adapter/kubernetes/fake_apiserver.h"
#include "tests/support/recording_listener.h"

namespace millrace::cluster_adapter {

// now() from the steady clock; the adapter sets no timers.
class SteadyTestClock : public scheduler::Clock {
 public:
  data::Micros now() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  scheduler::TimerId call_at(data::Micros, std::function<void()>) override { return 0; }
  void cancel_timer(scheduler::TimerId) override {}
};

using test_support::RecordedEvent;
using test_support::RecordingListener;

inline KubeConfig test_server_config(const FakeApiServer& server) {
  KubeConfig config;
  config.server = server.url();
  config.token = "test-token";
  config.origin = "test";
  return config;
}

// Fast backoff, so retries in tests take milliseconds.
inline BackoffPolicy fast_backoff() { return {1 * data::kMicrosPerMilli, 20 * data::kMicrosPerMilli, 0}; }

inline JobTemplate test_job_template() {
  return JobTemplate::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"labels": {"app": "catchup"}},
    "spec": {"template": {"spec": {"containers": [{"name": "worker", "image": "catchup:1",
      "command": ["catchup"], "args": ["--range", "{first}", "{count}", "--end={end}", "{id}/{attempt}"]}]}}}})",
                            "test template");
}

// Takes a node arrivals watch's news until `done` holds for what was gathered, or ~30 s pass (a
// hang guard).
template <typename Done>
NodeArrivalNews gather_until(NodeArrivalWatch& watch, Done done) {
  NodeArrivalNews gathered;
  for (int i = 0; i < 3000 && !done(gathered); ++i) {
    if (std::optional<NodeArrivalNews> news = watch.take_news()) {
      for (data::NodeArrival& n : news->nodes) gathered.nodes.push_back(std::move(n));
      gathered.unrecorded = news->unrecorded;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return gathered;
}

// Runs `poll` until `done` holds or ~30 s pass (a hang guard, not a timing assertion).
template <typename Cluster, typename Done>
bool poll_until(Cluster& cluster, Done done) {
  for (int i = 0; i < 3000 && !done(); ++i) cluster.poll(10 * data::kMicrosPerMilli);
  return done();
}

}  // namespace millrace::cluster_adapter
