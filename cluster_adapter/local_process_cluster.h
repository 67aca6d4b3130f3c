// The embedded default cluster: each attempt runs on this machine as a child process, the
// command template (command_template.h) rendered for the attempt and run through `/bin/sh -c`
// in its own process group, so a timeout, a cancel or a Ctrl-C can kill the worker together
// with everything it started. At most `concurrency` attempts run at once; the scheduler keeps
// to capacity(), so a submission beyond it is an error. Each attempt's stdout and stderr go to
// <log_dir>/<item id>.<attempt>.out and .err.
//
// Events, delivered only inside poll() on the caller's thread (see polled_cluster.h):
//   started    when the process was spawned (worker: the slot, "local-0", "local-1", ...)
//   succeeded  exit status 0
//   failed     reason "exit" with the exit code; "signal" when killed by a signal nobody here
//              sent (exit_code 128 + signal); "timeout" when the per-attempt timeout killed it;
//              "cancelled" after cancel().
// Killing is SIGTERM to the group, then SIGKILL after `kill_grace`. When an attempt's process
// exits, whatever it left running in its group is killed too. A child exit wakes poll() through
// the child's pidfd; nothing sleeps or spins. Children get SIGKILL if the loop's thread dies
// (PR_SET_PDEATHSIG), so a killed millrace does not leave its shells running.
#pragma once

#include <sys/types.h>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster_adapter/command_template.h"
#include "cluster_adapter/polled_cluster.h"
#include "cluster_adapter/shutdown_signal.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

struct LocalProcessOptions {
  std::string command;                 // command template, see command_template.h
  int concurrency = 1;                 // attempts running at once
  std::string log_dir = "millrace-logs";
  data::Micros timeout = 0;            // per attempt; 0: no timeout
  data::Micros kill_grace = 5 * data::kMicrosPerSecond;  // SIGTERM -> SIGKILL
};

class LocalProcessCluster : public PolledCluster {
 public:
  // Throws data::Error for a bad template, a concurrency below 1 or a log directory that
  // cannot be created. Event times come from `clock`. With `shutdown`, a SIGINT/SIGTERM wakes
  // poll() at once (and only once) so the run loop can stop the scheduler, which cancels what
  // runs; the cluster itself stops nothing.
  LocalProcessCluster(LocalProcessOptions options, const scheduler::Clock& clock,
                      ShutdownSignal* shutdown = nullptr);
  // Kills (SIGKILL) and reaps whatever still runs.
  ~LocalProcessCluster() override;
  LocalProcessCluster(const LocalProcessCluster&) = delete;
  LocalProcessCluster& operator=(const LocalProcessCluster&) = delete;

  void set_listener(scheduler::ClusterListener* listener) override { listener_ = listener; }
  void submit(const scheduler::Submission& submission) override;
  void cancel(scheduler::AttemptHandle handle) override;
  int capacity() const override;
  void poll(data::Micros max_wait) override;

  // Attempts whose process has not been reaped yet.
  int running() const { return static_cast<int>(running_.size()); }
  // Where an attempt's output goes; `stream` is "out" or "err".
  std::string log_path(const std::string& item_id, int attempt, const std::string& stream) const;

 private:
  struct Running {
    pid_t pid = -1;                    // also the process group id
    int pidfd = -1;
    int slot = 0;
    std::string worker;
    data::Micros started = 0;
    std::string kill_reason;           // set once we started killing it
    std::optional<data::Micros> kill_at;  // when SIGKILL follows the SIGTERM
  };
  enum class EventKind { kStarted, kSucceeded, kFailed };
  struct Pending {
    EventKind kind;
    scheduler::AttemptEvent event;
  };

  pid_t spawn(const std::string& command, const std::string& out_path, const std::string& err_path);
  // Waits up to `wait` for child exits; true when it noticed the shutdown request.
  bool gather(data::Micros wait);
  void reap(scheduler::AttemptHandle handle);
  void terminate(Running& running, const std::string& reason);
  void enforce_deadlines();
  std::optional<data::Micros> next_deadline() const;
  void deliver();

  LocalProcessOptions options_;
  CommandTemplate command_;
  const scheduler::Clock& clock_;
  ShutdownSignal* shutdown_;
  scheduler::ClusterListener* listener_ = nullptr;
  std::map<scheduler::AttemptHandle, Running> running_;
  std::vector<bool> slot_busy_;
  std::deque<Pending> pending_;
  bool shutdown_seen_ = false;
};

}  // namespace millrace::cluster_adapter
