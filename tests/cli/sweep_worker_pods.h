// The pods of a fanned-out sweep's worker pool, run for the loopback API test server as the real
// kubelet would run the pool Job's container: for each pool pod the server shows Running, a
// `millrace sweep-worker` process (MILLRACE_CLI) with the pod's environment (MILLRACE_LEASE_URL,
// MILLRACE_LEASE_TOKEN, and POD_NAME set to the pod's name, as the downward API would); when the
// process exits, its pod ends with its exit code; a pod deleted from the server while its worker
// runs and its Job lives (not by the Job's deletion) has its worker SIGKILLed, as the kubelet does
// for a pod deleted with no grace period. A test may SIGKILL a pod's worker or SIGSTOP it.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cluster_adapter/kubernetes/fake_apiserver.h"

namespace millrace::cli_test {

// Starts `millrace sweep-worker` with exactly the environment `env`, its stderr into `err`; its pid.
inline pid_t start_sweep_worker(const std::vector<std::string>& env, const std::string& err) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> envp;
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    char* argv[] = {const_cast<char*>(MILLRACE_CLI), const_cast<char*>("sweep-worker"), nullptr};
    if (!freopen(err.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(126);
    execve(MILLRACE_CLI, argv, envp.data());
    _exit(127);
  }
  return pid;
}

class SweepWorkerPods {
 public:
  SweepWorkerPods(cluster_adapter::FakeApiServer& server, std::filesystem::path logs)
      : server_(server), logs_(std::move(logs)) {
    thread_ = std::thread([this] { watch(); });
  }
  ~SweepWorkerPods() {
    stop_ = true;
    thread_.join();
    std::lock_guard lock(mutex_);
    for (const auto& [pid, pod] : running_) {
      kill(pid, SIGKILL);
      kill(pid, SIGCONT);
      waitpid(pid, nullptr, 0);
    }
  }

  // SIGKILLs the worker of `pod`; false when it runs none.
  bool kill_worker(const std::string& pod) {
    std::lock_guard lock(mutex_);
    for (const auto& [pid, name] : running_) {
      if (name == pod) return ::kill(pid, SIGKILL) == 0;
    }
    return false;
  }
  // SIGSTOPs the worker of `pod` (its pid; 0 when it runs none): it holds its lease unextended.
  pid_t stop_worker(const std::string& pod) {
    std::lock_guard lock(mutex_);
    for (const auto& [pid, name] : running_) {
      if (name == pod && ::kill(pid, SIGSTOP) == 0) return pid;
    }
    return 0;
  }
  int started() const { return started_; }
  // The pods deleted from the server while their worker ran (their workers killed), in order.
  std::vector<std::string> deleted() const {
    std::lock_guard lock(mutex_);
    return deleted_;
  }
  // The exit codes of the workers that ended, by pod.
  std::map<std::string, int> exits() const {
    std::lock_guard lock(mutex_);
    return exits_;
  }

 private:
  void watch() {
    std::set<std::string> seen;
    while (!stop_) {
      std::set<std::string> present;
      for (const nlohmann::json& pod : server_.objects("pods")) {
        const std::string name = pod["metadata"]["name"];
        present.insert(name);
        job_of_[name] = pod["metadata"]["labels"].value("batch.kubernetes.io/job-name", "");
        if (pod["status"].value("phase", "") != "Running" || !seen.insert(name).second) continue;
        // TMPDIR: the bundles a worker writes stay in the test's folder, even when it is killed.
        std::vector<std::string> env = {"POD_NAME=" + name, "PATH=/usr/bin:/bin", "TMPDIR=" + logs_.string()};
        for (const auto& var : pod["spec"]["containers"][0].value("env", nlohmann::json::array())) {
          if (var.contains("value")) env.push_back(var.value("name", "") + "=" + var.value("value", ""));
        }
        spawn(name, env);
      }
      std::set<std::string> jobs;  // listed after the pods: a Job here outlived its pods missing there
      for (const nlohmann::json& job : server_.objects("jobs")) jobs.insert(job["metadata"]["name"].get<std::string>());
      kill_deleted(present, jobs);
      reap();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  void spawn(const std::string& pod, const std::vector<std::string>& env) {
    const pid_t pid = start_sweep_worker(env, (logs_ / (pod + ".log")).string());
    std::lock_guard lock(mutex_);
    running_[pid] = pod;
    ++started_;
  }

  // Kills the workers of pods gone from the server while their Job is still there.
  void kill_deleted(const std::set<std::string>& present, const std::set<std::string>& jobs) {
    std::lock_guard lock(mutex_);
    for (const auto& [pid, pod] : running_) {
      if (present.count(pod) || !jobs.count(job_of_[pod]) ||
          std::find(deleted_.begin(), deleted_.end(), pod) != deleted_.end()) {
        continue;
      }
      kill(pid, SIGKILL);
      kill(pid, SIGCONT);
      deleted_.push_back(pod);
    }
  }

  void reap() {
    std::vector<std::pair<std::string, int>> ended;
    {
      std::lock_guard lock(mutex_);
      for (auto it = running_.begin(); it != running_.end();) {
        int status = 0;
        if (waitpid(it->first, &status, WNOHANG) != it->first) {
          ++it;
          continue;
        }
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        exits_[it->second] = code;
        ended.emplace_back(it->second, code);
        it = running_.erase(it);
      }
    }
    for (const auto& [pod, code] : ended) server_.end_pod(pod, code);
  }

  cluster_adapter::FakeApiServer& server_;
  std::filesystem::path logs_;
  mutable std::mutex mutex_;
  std::map<pid_t, std::string> running_;
  std::map<std::string, int> exits_;
  std::vector<std::string> deleted_;
  std::map<std::string, std::string> job_of_;  // pod -> its Job's name (watch thread only)
  std::atomic<int> started_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace millrace::cli_test
