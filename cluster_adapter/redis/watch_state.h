// What `millrace watch` remembers of a live Redis work queue beyond what the queue holds, kept
// in the trace store (tables watch_heartbeats and watch_holds, data/schema.sql migration 3) so
// that a restarted watch neither re-queues healthy ranges nor forgets workers that stopped while
// it was down: the last time each worker's heartbeat key was seen, and each in-progress range's
// owner and the time it was first seen held by that owner.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "data/time.h"
#include "data/trace_store.h"

namespace millrace::cluster_adapter {

struct RangeHold {
  std::string worker;  // owner in job_owners, "" when none is named
  data::Micros since = 0;

  friend bool operator==(const RangeHold&, const RangeHold&) = default;
};

struct WatchState {
  std::map<std::string, data::Micros> last_heartbeat;  // worker -> last time its key was seen
  std::map<std::string, RangeHold> holds;              // in-progress range -> owner, since

  friend bool operator==(const WatchState&, const WatchState&) = default;
};

// The state last saved for the run (empty for a run never watched).
WatchState load_watch_state(const data::TraceStore& store, std::int64_t run_id);
// Replaces the run's saved state with `state`, in one transaction.
void save_watch_state(data::TraceStore& store, std::int64_t run_id, const WatchState& state);

}  // namespace millrace::cluster_adapter
