// A real run owned by one live millrace at a time, and cleaned up after when its owner died:
// the session of this process is claimed in the store (data/run_sessions.h), refused while the
// run's live owner runs (same machine: its pid and start time still run; another machine: its
// heartbeat is younger than kHeartbeatExpiry), taken over, and said so, when the owner is gone.
// Before a resumed run starts anything, sweep() settles what the sessions taken over left
// running (process_trees.h: their cgroups, marked processes and recorded leaders): by default it
// ends them at once; asked to wait, it first waits for each recorded attempt to end by itself
// (bounded by the run's attempt timeout and a wait limit). Then every unfinished attempt is
// recorded: with its real outcome (exit code, end) where its recorder left an exit status
// (attempt_exit_status.h), as failed ("exit-status-lost", exit code -1) where its status file
// exists but is empty or cut short (the attempt ended, a full disk lost its exit code: it is
// neither known to have succeeded nor to have never run, so its range runs again as a retry,
// counted against --max-attempts, and the resume says so), as a timeout where it outlived the
// attempt timeout while awaited, else as cancelled ("session-lost", its range runs again). So no
// range ever runs in two
// processes at once, and none that ended meanwhile runs again. Store writes here wait for a busy
// store (StoreBacklog), they never fail on one.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <set>
#include <vector>

#include "cluster_adapter/realtime/process_trees.h"
#include "cluster_adapter/realtime/store_backlog.h"
#include "data/run_sessions.h"
#include "scheduler/clock.h"

namespace millrace::cluster_adapter {

inline constexpr data::Micros kHeartbeatEvery = 5 * data::kMicrosPerSecond;
inline constexpr data::Micros kHeartbeatExpiry = 120 * data::kMicrosPerSecond;
// How long ending a dead session's processes may take before the resume is refused.
inline constexpr data::Micros kLeftoverPatience = 30 * data::kMicrosPerSecond;
// The failure reason of an attempt that ended with its exit status lost.
inline constexpr const char* kExitStatusLost = "exit-status-lost";
// How often awaited leftovers are looked at.
inline constexpr data::Micros kLeftoverRecheck = 50 * data::kMicrosPerMilli;

// What sweep() does with the attempts a dead session of this machine left running.
struct LeftoverHandling {
  bool wait = false;                  // false: end them at once
  data::Micros attempt_timeout = 0;   // the run's per-attempt timeout (0: none)
  data::Micros wait_limit = 0;        // wait: longest wait for one session's leftovers (0: none)
  std::function<bool()> interrupted;  // wait: true once the run is asked to stop
};

class RunOwnership {
 public:
  // Claims `run_id` for this process at wall-clock time `now`. Throws data::RunOwned when a
  // live millrace owns it; writes "taking over" notes to `notes`.
  RunOwnership(StoreBacklog& writes, std::int64_t run_id, data::Micros now, std::ostream& notes);

  int session() const { return me_.session; }
  // Records where this session holds its attempts' processes.
  void set_trees(const ProcessTrees& trees);
  // The store row of an attempt's tree, queued.
  void record_tree(const data::WorkItem& item, int attempt, const std::string& worker, const TreeIdentity& tree,
                   data::Micros now);
  // Settles what every earlier session still marked live left running (see above), records
  // its unfinished attempts and marks it swept. Throws data::Error when processes would not
  // die, or when `handling.interrupted` stops a wait (the leftovers then run on, the session
  // stays to be swept by the next resume).
  void sweep(const scheduler::Clock& clock, const LeftoverHandling& handling);
  // Queues a heartbeat when one is due.
  void heartbeat(data::Micros now);
  // This session ends: the run is free (queued; the caller drains the backlog).
  void release();

 private:
  // Waits until each of `trees` (recorded by `dead`) wrote its exit status or is gone, ran past
  // the attempt timeout, or the wait limit is reached; returns the indices of those that timed out.
  std::set<std::size_t> await(const data::SessionRecord& dead, const std::vector<data::AttemptTreeRecord>& trees,
                              const scheduler::Clock& clock, const LeftoverHandling& handling);

  StoreBacklog& writes_;
  std::int64_t run_id_;
  std::ostream& notes_;
  data::SessionRecord me_;
  data::Micros last_heartbeat_ = 0;
};

// Why the owner of `session` is gone at `now` (nullopt: it runs), judged from this machine.
std::optional<std::string> owner_gone(const data::SessionRecord& session, data::Micros now);

}  // namespace millrace::cluster_adapter
