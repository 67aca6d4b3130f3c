// The embedded default cluster: each attempt runs on this machine as a child process, the
// command template (command_template.h) rendered for the attempt and run by `/bin/sh` under the
// exit-status recorder (attempt_exit_status.h: the exit code goes to <item>.<attempt>.status
// beside the logs) in its own process group, so a timeout, a cancel or a Ctrl-C can kill the worker together
// with everything it started. At most `concurrency` attempts run at once; the scheduler keeps
// to capacity(), so a submission beyond it is an error. Each attempt's stdout and stderr go to
// <log_dir>/<item id>.<attempt>.out and .err, the item id escaped so that distinct ids never
// share a file ('%' and every byte outside [A-Za-z0-9._-] become %XX).
//
// Resources: with a capacity (the machine's CPU and memory, or a declared budget, in milli-units
// as data/quantity.h), attempts are packed so that the requests of the running ones never
// exceed it: an attempt whose item's requests do not fit in what is left waits, in submission
// order (none overtakes another), and starts when enough is given back; an item asking for more
// than the whole capacity is refused at submission, naming it.
//
// Events, delivered only inside poll() on the caller's thread (see realtime/polled_cluster.h):
//   started    when the process was spawned (worker: the slot, "local-0", "local-1", ...)
//   succeeded  exit status 0
//   failed     reason "exit" with the exit code (a command killed by a signal exits 128 + signal,
//              as from any shell); "signal" when the recorder itself was killed by a signal
//              nobody here sent (exit_code 128 + signal); "timeout" when the per-attempt timeout killed it;
//              "cancelled" after cancel().
// An attempt is its process tree (realtime/process_trees.h: a cgroup of its own where the machine
// allows, and a marker in the environment of all it starts), not just its leader: killing is
// SIGTERM to the whole tree, then SIGKILL after `kill_grace`; when the leader exits, whatever
// the tree still runs is killed, and the attempt's end is reported only once nothing of it
// runs, so a retry never runs beside its predecessor. A child exit wakes poll() through the
// child's pidfd; nothing spins. Attempts outlive a millrace killed outright: the next session of
// the run ends them or waits for them, from the identities (and status files) reported to the
// tree observer and recorded in the store. Processes start
// without copying millrace's page tables (attempt_spawn.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster_adapter/local/attempt_spawn.h"
#include "cluster_adapter/local/command_template.h"
#include "cluster_adapter/realtime/polled_cluster.h"
#include "cluster_adapter/realtime/process_trees.h"
#include "cluster_adapter/realtime/shutdown_signal.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

struct LocalProcessOptions {
  std::string command;                 // command template, see command_template.h
  int concurrency = 1;                 // attempts running at once
  std::string log_dir = "millrace-logs";
  data::Micros timeout = 0;            // per attempt; 0: no timeout
  data::Micros kill_grace = 5 * data::kMicrosPerSecond;  // SIGTERM -> SIGKILL
  std::string session_tag;             // unique on the machine; empty: this process's pid and start time
  bool cgroups = true;                 // false: hold trees by marker and process group only
  data::Quantities capacity;  // requests are packed into it; empty: not looked at
};

// This machine's CPUs and memory as a capacity ("cpu", "memory").
data::Quantities machine_capacity();

// Throws data::Error naming the item, what it asks and the resource short when its requests
// exceed `capacity` (`origin` says where the capacity comes from, e.g. "--local-capacity").
void require_fits_machine(const data::WorkItem& item, const data::Quantities& capacity,
                          const std::string& origin);

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
  void set_tree_observer(TreeObserver observer) { tree_observer_ = std::move(observer); }
  void submit(const scheduler::Submission& submission) override;
  void cancel(scheduler::AttemptHandle handle) override;
  int capacity() const override;
  void poll(data::Micros max_wait) override;

  // Attempts whose process has not been reaped yet.
  int running() const { return static_cast<int>(running_.size()); }
  // Attempts submitted and waiting for their requests to fit.
  int held() const { return static_cast<int>(held_.size()); }
  // Where an attempt's output goes; `stream` is "out" or "err" ("status": its exit status).
  std::string log_path(const std::string& item_id, int attempt, const std::string& stream) const;
  // How the session holds its attempts' trees (its tag and cgroup root go into the store).
  const ProcessTrees& trees() const { return trees_; }

 private:
  struct Running {
    TreeIdentity tree;                 // tree.pid: the leader, also the process group id
    int pidfd = -1;                    // -1 once the leader was reaped
    int status = 0;                    // the leader's wait status, once reaped
    int slot = 0;
    std::string worker;
    data::Quantities requests;  // held while it runs (with a capacity)
    data::Micros started = 0;
    std::string kill_reason;           // set once we started killing it
    std::optional<data::Micros> kill_at;  // when SIGKILL follows the SIGTERM
  };
  enum class EventKind { kStarted, kSucceeded, kFailed };
  struct Pending {
    EventKind kind;
    scheduler::KeptAttemptEvent event;
  };

  TreeIdentity spawn(const std::string& key, const std::string& command, const std::string& log_stem, int* pidfd);
  void start(const scheduler::Submission& submission);
  // Starts held attempts, first come first, while the first fits.
  void start_held();
  // Waits up to `wait` for child exits; true when it noticed the shutdown request.
  bool gather(data::Micros wait);
  // The leader exited: ends what its tree still runs.
  void reap(Running& running);
  // Reports the attempts whose leader exited and whose tree is gone.
  void finish_emptied();
  void finish(scheduler::AttemptHandle handle);
  void terminate(Running& running, const std::string& reason);
  void enforce_deadlines();
  std::optional<data::Micros> next_deadline() const;
  bool draining() const;
  void deliver();

  LocalProcessOptions options_;
  CommandTemplate command_;
  ProcessTrees trees_;
  Spawner spawner_;
  TreeObserver tree_observer_;
  const scheduler::Clock& clock_;
  ShutdownSignal* shutdown_;
  scheduler::ClusterListener* listener_ = nullptr;
  std::map<scheduler::AttemptHandle, Running> running_;
  std::vector<bool> slot_busy_;
  data::Quantities free_;  // capacity less the running attempts' requests
  std::deque<scheduler::Submission> held_;
  std::deque<Pending> pending_;
  bool shutdown_seen_ = false;
};

}  // namespace millrace::cluster_adapter
