// A real run owned by one live millrace at a time, and cleaned up after when its owner died:
// the session of this process is claimed in the store (data/run_sessions.h), refused while the
// run's live owner runs (same machine: its pid and start time still run; another machine: its
// heartbeat is younger than kHeartbeatExpiry), taken over, and said so, when the owner is gone.
// Before a resumed run starts anything, sweep() ends what the sessions taken over left running
// (process_trees.h: their cgroups, marked processes and recorded leaders) and records their
// unfinished attempts as cancelled ("session-lost"), so no range ever runs in two processes at
// once. Store writes here wait for a busy store (StoreBacklog), they never fail on one.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "cluster_adapter/realtime/process_trees.h"
#include "cluster_adapter/realtime/store_backlog.h"
#include "data/run_sessions.h"

namespace millrace::cluster_adapter {

inline constexpr data::Micros kHeartbeatEvery = 5 * data::kMicrosPerSecond;
inline constexpr data::Micros kHeartbeatExpiry = 120 * data::kMicrosPerSecond;
// How long ending a dead session's processes may take before the resume is refused.
inline constexpr data::Micros kLeftoverPatience = 30 * data::kMicrosPerSecond;

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
  // Ends what every earlier session still marked live left running, records its unfinished
  // attempts as cancelled and marks it swept. Throws data::Error when processes would not die.
  void sweep(data::Micros now);
  // Queues a heartbeat when one is due.
  void heartbeat(data::Micros now);
  // This session ends: the run is free (queued; the caller drains the backlog).
  void release();

 private:
  StoreBacklog& writes_;
  std::int64_t run_id_;
  std::ostream& notes_;
  data::SessionRecord me_;
  data::Micros last_heartbeat_ = 0;
};

// Why the owner of `session` is gone at `now` (nullopt: it runs), judged from this machine.
std::optional<std::string> owner_gone(const data::SessionRecord& session, data::Micros now);

}  // namespace millrace::cluster_adapter
