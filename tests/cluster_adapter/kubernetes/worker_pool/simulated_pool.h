// Worker pods of a worker-pool run, simulated for the loopback API test server: a thread
// watches the server's pods and, for each pool pod the simulated kubelet runs, starts a worker
// thread that speaks the lease protocol at the pod's MILLRACE_LEASE_URL with its
// MILLRACE_LEASE_TOKEN, as the pod's container would (lease, heartbeat while "working",
// complete; drop a range whose heartbeat is refused; wait and ask again; exit when told). When
// the worker returns, its pod ends with that exit code. A test may make workers misbehave: the
// worker of one pod index told to hang on its Nth lease, or every worker leasing one item while
// that item's first N leases last, stops heartbeating and completing, until release_hung(), then
// tries to complete that lease anyway and notes the answer. A hung worker hangs on after its pod
// is deleted, as one on a node cut off from the cluster does.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "tests/cluster_adapter/kubernetes/fake_apiserver.h"

namespace millrace::cluster_adapter {

class SimulatedPool {
 public:
  struct Options {
    int hang_index = -1;          // the pod index whose worker hangs, -1: none
    int hang_on_lease = 1;        // on its Nth lease
    int work_ms_per_100 = 5;      // work time per 100 units of a range
    std::string hang_item = "";   // the item whose leases hang, empty: none
    int hang_item_leases = 0;     // how many of its leases (the first ones)
  };

  SimulatedPool(FakeApiServer& server, Options options) : server_(server), options_(options) {
    watcher_ = std::thread([this] { watch(); });
  }
  ~SimulatedPool() {
    stop_ = true;
    release_hung();
    watcher_.join();
    for (auto& worker : workers_) worker.join();
  }

  // Lets the hung worker go on: it tries to complete its lease and exits.
  void release_hung() { hung_released_ = true; }
  // Environment of the first pool pod seen (JOB_COMPLETION_INDEX, MILLRACE_LEASE_URL, ...).
  std::map<std::string, std::string> first_pod_env() const {
    std::lock_guard lock(mutex_);
    return first_env_;
  }
  // The pods whose workers hung, in the order they hung.
  std::vector<std::string> hung_pods() const {
    std::lock_guard lock(mutex_);
    return hung_pods_;
  }
  std::string hung_pod() const {
    std::lock_guard lock(mutex_);
    return hung_pods_.empty() ? "" : hung_pods_.front();
  }
  // HTTP status of the last hung worker's late completion (0 until one tried).
  int late_completion_status() const { return late_status_; }
  int workers_started() const { return started_; }
  int workers_exited() const { return exited_; }

 private:
  void watch() {
    std::set<std::string> seen;
    while (!stop_) {
      for (const nlohmann::json& pod : server_.objects("pods")) {
        std::string name = pod["metadata"]["name"];
        if (pod["status"].value("phase", "") != "Running" || !seen.insert(name).second) continue;
        std::map<std::string, std::string> env;
        for (const auto& var : pod["spec"]["containers"][0].value("env", nlohmann::json::array())) {
          env[var.value("name", "")] = var.value("value", "");
        }
        {
          std::lock_guard lock(mutex_);
          if (first_env_.empty()) first_env_ = env;
        }
        ++started_;
        workers_.emplace_back([this, name, env] {
          int code = work(name, std::stoi(env.at("JOB_COMPLETION_INDEX")), env.at("MILLRACE_LEASE_URL"),
                          env.count("MILLRACE_LEASE_TOKEN") ? env.at("MILLRACE_LEASE_TOKEN") : "");
          ++exited_;
          server_.end_pod(name, code);
        });
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // The worker's loop; returns its exit code.
  int work(const std::string& pod, int index, const std::string& url, const std::string& token) {
    httplib::Client client(url);
    if (!token.empty()) client.set_bearer_token_auth(token.c_str());
    int leases = 0;
    while (!stop_) {
      auto answer = client.Post("/v1/lease", nlohmann::json{{"worker", pod}}.dump(), "application/json");
      if (!answer || answer->status != 200) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the scheduler is not up (yet)
        continue;
      }
      nlohmann::json offer = nlohmann::json::parse(answer->body);
      if (offer["action"] == "exit") return 0;
      if (offer["action"] != "work") continue;
      std::string lease = "/v1/leases/" + offer["lease"]["id"].get<std::string>();
      if (hangs(pod, index, ++leases, offer["item"].value("id", ""))) {
        while (!hung_released_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        auto late = client.Post((lease + "/complete").c_str(), R"({"exit_code": 0})", "application/json");
        late_status_ = late ? late->status : -1;
        return 0;
      }
      auto work_time = std::chrono::milliseconds(offer["item"].value("count", 100) * options_.work_ms_per_100 / 100);
      auto heartbeat = std::chrono::milliseconds(offer["lease"]["heartbeat_every_ms"].get<int>());
      auto done = std::chrono::steady_clock::now() + work_time;
      bool lost = false;  // the lease expired or was cancelled: the range is dropped
      while (!lost && !stop_ && std::chrono::steady_clock::now() < done) {
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(heartbeat, done - std::chrono::steady_clock::now()));
        if (std::chrono::steady_clock::now() >= done) break;
        auto beat = client.Post((lease + "/heartbeat").c_str(), "{}", "application/json");
        lost = beat && (beat->status == 410 || beat->status == 404);
      }
      if (lost || stop_) continue;
      nlohmann::json result = {{"exit_code", 0}, {"work_time_ms", work_time.count()}};
      client.Post((lease + "/complete").c_str(), result.dump(), "application/json");
    }
    return 0;
  }

  // Whether the worker of `pod` (of `index`) hangs on its lease number `lease`, of `item` (noted).
  bool hangs(const std::string& pod, int index, int lease, const std::string& item) {
    std::lock_guard lock(mutex_);
    bool hang = (index == options_.hang_index && lease == options_.hang_on_lease) ||
                (!item.empty() && item == options_.hang_item && item_leases_hung_ < options_.hang_item_leases);
    if (hang) {
      item_leases_hung_ += item == options_.hang_item;
      hung_pods_.push_back(pod);
    }
    return hang;
  }

  FakeApiServer& server_;
  Options options_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> first_env_;
  std::vector<std::string> hung_pods_;
  int item_leases_hung_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> hung_released_{false};
  std::atomic<int> late_status_{0};
  std::atomic<int> started_{0};
  std::atomic<int> exited_{0};
  std::vector<std::thread> workers_;
  std::thread watcher_;
};

}  // namespace millrace::cluster_adapter
