// `millrace sweep-worker`: a pod of the worker pool a fanned-out compare or plan runs on
// (cli/sweep_fanout.h), the pool Job's container command. It reads MILLRACE_LEASE_URL,
// MILLRACE_LEASE_TOKEN (never printed) and POD_NAME (else the host name) from the environment
// and loops: lease a shard (lease_server.h), fetch the sweep's bundle once per hash and check its
// SHA-256 (a mismatch is refused: the shard fails, never runs), simulate the shard's replicas in
// this process, heartbeat meanwhile, and complete with the results; it exits 0 when told to. A
// shard it cannot run (a bundle refused, a payload or option it cannot use) is completed as
// failed with the reason, so the scheduler core retries it elsewhere.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/experiment_file.h"
#include "cli/sweep_bundle.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_client.h"
#include "data/error.h"
#include "data/importers/json_input.h"
#include "data/redaction.h"
#include "sim/sweep_shards.h"

namespace millrace::cli {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxLeaseAnswer = 1 << 20;
constexpr std::size_t kMaxReason = 1024;  // as the lease API takes it
constexpr auto kRetryUnreachable = std::chrono::seconds(1);

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != 0 ? value : fallback;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "sweep-worker";
}

// A reason the lease API takes: printable, at most kMaxReason characters.
std::string reason_of(const std::string& text) {
  std::string out;
  for (char c : text) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  return out.substr(0, kMaxReason);
}

// Heartbeats a lease every `every` until stopped; lost() once the API said the lease is gone.
class Heartbeat {
 public:
  Heartbeat(const cluster_adapter::LeaseClient& client, std::string path, std::chrono::milliseconds every)
      : thread_([this, &client, path = std::move(path), every] {
          std::unique_lock lock(mutex_);
          while (!stop_) {
            if (stopped_.wait_for(lock, every, [this] { return stop_; })) break;
            lock.unlock();
            const long status = client.post(path, "{}").status;
            lock.lock();
            if (status == 404 || status == 409 || status == 410) lost_ = true;
          }
        }) {}
  ~Heartbeat() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    stopped_.notify_all();
    thread_.join();
  }
  bool lost() {
    std::lock_guard lock(mutex_);
    return lost_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  bool lost_ = false;
  std::thread thread_;
};

class SweepWorker {
 public:
  SweepWorker(std::string url, std::string token, std::string name)
      : client_(std::move(url), std::move(token)),
        name_(std::move(name)),
        dir_(std::filesystem::temp_directory_path() / ("millrace-sweep-worker-" + std::to_string(getpid()))) {}
  ~SweepWorker() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Until the lease API says exit.
  void run() {
    const std::string ask = json{{"worker", name_}}.dump();
    bool said_unreachable = false;
    for (;;) {
      const cluster_adapter::LeaseAnswer answer = client_.post("/v1/lease", ask, kMaxLeaseAnswer);
      if (answer.status == 0 || answer.status >= 500) {
        if (!said_unreachable) std::cerr << "millrace sweep-worker: the lease API is not reachable yet (" << answer.error
                                         << "status " << answer.status << "); asking again\n";
        said_unreachable = true;
        std::this_thread::sleep_for(kRetryUnreachable);
        continue;
      }
      if (answer.status == 401) {
        throw data::Error("MILLRACE_LEASE_TOKEN", "the lease API refused it (401): it is not the pool's token");
      }
      const json offer = data::importers::parse_json_or_discarded(answer.body);
      if (answer.status != 200 || !offer.is_object()) {
        throw data::Error("POST /v1/lease", "answered " + std::to_string(answer.status) + ": " + answer.body.substr(0, 200));
      }
      const std::string action = offer.value("action", "");
      if (action == "exit") return;
      if (action == "work") work(offer);
    }
  }

 private:
  void work(const json& offer) {
    const json& lease = offer.value("lease", json::object());
    const std::string id = lease.value("id", "");
    if (id.empty() || id.find('/') != std::string::npos) throw data::Error("POST /v1/lease", "a work offer without a lease id");
    const std::string path = "/v1/leases/" + id;
    const auto every = std::chrono::milliseconds(std::max<std::int64_t>(1, lease.value("heartbeat_every_ms", 1000)));
    const std::string payload = offer.value("item", json::object()).value("payload", "");
    const auto started = std::chrono::steady_clock::now();
    json completion;
    bool lost = false;
    {
      Heartbeat heartbeat(client_, path + "/heartbeat", every);
      try {
        const sim::ShardOrder order = sim::shard_order_from_payload(payload, "the shard's payload");
        const BundledSpec& bundle = bundle_of(order.bundle_sha256);
        const sim::ComparisonSpec spec = sim::selected(bundle.base, order.selection);
        completion = {{"exit_code", 0}, {"results", sim::to_json(sim::run_shard(spec, order.shard))}};
      } catch (const std::exception& e) {
        std::cerr << "millrace sweep-worker: lease " << id << ": " << e.what() << "\n";
        completion = {{"exit_code", 1}, {"reason", reason_of(e.what())}};
      }
      lost = heartbeat.lost();
    }
    if (lost) return;  // its shard went back to the queue: the results are not ours to give
    completion["work_time_ms"] =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    const cluster_adapter::LeaseAnswer done = client_.post(path + "/complete", completion.dump(), kMaxLeaseAnswer);
    if (done.status != 200 && done.status != 410 && done.status != 404) {
      std::cerr << "millrace sweep-worker: completing lease " << id << ": " << (done.error.empty() ? "" : done.error + " ")
                << done.status << " " << done.body.substr(0, 300) << "\n";
    }
  }

  // The bundle of `sha256`, fetched once and checked; a mismatch is refused (and not kept).
  const BundledSpec& bundle_of(const std::string& sha256) {
    auto found = bundles_.find(sha256);
    if (found != bundles_.end()) return *found->second;
    const cluster_adapter::LeaseAnswer answer = client_.get("/v1/bundles/" + sha256, kMaxBundleBytes);
    if (answer.status != 200) {
      throw data::Error("bundle " + sha256, answer.error.empty() ? "the lease API answered " + std::to_string(answer.status) +
                                                                       ": " + answer.body.substr(0, 200)
                                                                 : answer.error);
    }
    const std::string actual = sha256_hex(answer.body);
    if (actual != sha256) {
      throw data::Error("bundle " + sha256, "refused: its bytes hash to " + actual +
                                                ", not the SHA-256 its shards name; the shard is not run");
    }
    auto made = spec_from_bundle(answer.body, dir_ / sha256);
    return *bundles_.emplace(sha256, std::move(made)).first->second;
  }

  cluster_adapter::LeaseClient client_;
  std::string name_;
  std::filesystem::path dir_;
  std::map<std::string, std::unique_ptr<BundledSpec>> bundles_;
};

}  // namespace

void add_sweep_worker_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "sweep-worker",
      "A pool worker of compare/plan --cluster kubernetes: leases shards, simulates them, returns the results");
  cmd->footer(
      "Reads MILLRACE_LEASE_URL and MILLRACE_LEASE_TOKEN (set in the pool Job by millrace) and POD_NAME (else the "
      "host name); exits 0 when the sweep has no more work for it.");
  cmd->callback([] {
    const std::string url = env_or("MILLRACE_LEASE_URL", "");
    if (url.empty()) throw data::Error("MILLRACE_LEASE_URL", "not set: the lease API's URL (the pool Job sets it)");
    const std::string token = env_or("MILLRACE_LEASE_TOKEN", "");
    if (!token.empty()) data::register_secret(token);
    SweepWorker(url, token, env_or("POD_NAME", host_name())).run();
  });
}

}  // namespace millrace::cli
