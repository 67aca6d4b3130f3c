// Persistence of a real run as it happens: every finished attempt goes into the trace store in
// its own transaction the moment the scheduler reports it, so a run killed at any point (even
// by SIGKILL) has recorded everything that finished; while another process holds the store
// locked, finished attempts wait in memory (store_backlog.h) and the run goes on. From those records, resume_snapshot()
// rebuilds the scheduler's state for `millrace run --resume`: succeeded items stay done and
// are never run again, the rest is queued again with its attempt count carried over. The
// recorder also keeps the run's metrics (attempt durations, failures) for GET /metrics and the
// predicted work left (remaining_work.h) for the ETA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster_adapter/realtime/remaining_work.h"
#include "cluster_adapter/realtime/run_metrics.h"
#include "cluster_adapter/realtime/store_backlog.h"
#include "data/records.h"
#include "scheduler/retry_policy.h"
#include "scheduler/scheduler.h"
#include "scheduler/status_report.h"

namespace millrace::cluster_adapter {

class RunRecorder {
 public:
  // `recorded`: attempts of earlier sessions of the run (already in the store), counted in the
  // metrics and the predicted work left, not written again. `noise`: the cost model's, for the
  // ETA's band (none: the band is the prediction).
  RunRecorder(StoreBacklog& writes, std::int64_t run_id, const std::vector<data::WorkItem>& items,
              const std::vector<data::Attempt>& recorded, const data::DurationNoise& noise = {});

  // The scheduler's attempt observer: records finished attempts, ignores running ones.
  void observe(const data::Attempt& attempt);

  // Items the scheduler gave up (its status's jobs_failed) leave the predicted work too.
  void settle_given_up(const scheduler::StatusReport& status);

  // Metrics of the run now: counts from the scheduler's status, durations from the attempts,
  // the ETA of the work left on `slots` attempts at once.
  RunMetrics metrics(const scheduler::StatusReport& status, int slots) const;
  // Predicted duration of the items that have neither succeeded nor been given up yet.
  data::Micros remaining_predicted() const { return remaining_.predicted(); }
  const RemainingWork& remaining() const { return remaining_; }

 private:
  void count(const data::Attempt& attempt);

  StoreBacklog& writes_;
  std::int64_t run_id_;
  RemainingWork remaining_;
  DurationHistogram durations_;
  std::int64_t attempts_failed_ = 0;
};

// The scheduler state to resume a run from its recorded attempts: items with a succeeded
// attempt are succeeded; items whose failures (not counting cancellations) used up
// `retry.max_attempts` are failed; every other item waits to run again, its attempt count set
// to its recorded attempts so new attempt numbers never collide with recorded ones, and its
// cancelled attempts (a stopped run) noted so they do not use up its retry budget.
scheduler::SchedulerSnapshot resume_snapshot(const std::vector<data::WorkItem>& items,
                                             const std::vector<data::Attempt>& recorded,
                                             const scheduler::RetryPolicy& retry);

}  // namespace millrace::cluster_adapter
