#include "cluster_adapter/realtime/run_recorder.h"

#include <algorithm>
#include <map>
#include <string>

#include "data/redaction.h"

namespace millrace::cluster_adapter {

RunRecorder::RunRecorder(StoreBacklog& writes, std::int64_t run_id, const std::vector<data::WorkItem>& items,
                         const std::vector<data::Attempt>& recorded, const data::DurationNoise& noise)
    : writes_(writes), run_id_(run_id), remaining_(items, noise) {
  for (const data::Attempt& attempt : recorded) {
    count(attempt);
    if (attempt.outcome == data::Outcome::kSucceeded) remaining_.observe(attempt.item_id, attempt.duration());
  }
}

void RunRecorder::count(const data::Attempt& attempt) {
  durations_.observe(attempt.duration());
  if (attempt.outcome != data::Outcome::kSucceeded) ++attempts_failed_;
}

void RunRecorder::observe(const data::Attempt& attempt) {
  if (attempt.outcome == data::Outcome::kRunning) return;
  // What the cluster said about the attempt (a rejected create's message, a worker's name) is
  // kept in the store: through the redaction layer like every other output.
  data::Attempt kept = attempt;
  kept.failure_reason = data::redact(kept.failure_reason);
  kept.worker = data::redact(kept.worker);
  writes_.add([run_id = run_id_, kept](data::TraceStore& store) { store.add_attempts(run_id, {kept}); }, 1);
  count(attempt);
  if (attempt.outcome == data::Outcome::kSucceeded) remaining_.observe(attempt.item_id, attempt.duration());
}

void RunRecorder::settle_given_up(const scheduler::StatusReport& status) {
  for (const scheduler::FailedJob& job : status.jobs_failed) remaining_.settle(job.item);
}

RunMetrics RunRecorder::metrics(const scheduler::StatusReport& status, int slots) const {
  RunMetrics metrics = status_metrics(status);
  metrics.attempts_failed = attempts_failed_;
  metrics.eta = remaining_.eta(slots);
  metrics.attempt_durations = durations_;
  return metrics;
}

scheduler::SchedulerSnapshot resume_snapshot(const std::vector<data::WorkItem>& items,
                                             const std::vector<data::Attempt>& recorded,
                                             const scheduler::RetryPolicy& retry) {
  struct Tally {
    int attempts = 0;
    int failures = 0;
    int cancelled = 0;
    bool succeeded = false;
  };
  std::map<std::string, Tally> tallies;
  for (const data::Attempt& attempt : recorded) {
    Tally& tally = tallies[attempt.item_id];
    tally.attempts = std::max(tally.attempts, attempt.number);
    tally.succeeded |= attempt.outcome == data::Outcome::kSucceeded;
    tally.failures += attempt.outcome == data::Outcome::kFailed;
    tally.cancelled += attempt.outcome == data::Outcome::kCancelled;
  }
  scheduler::SchedulerSnapshot snapshot;
  for (const data::WorkItem& item : items) {
    const Tally& tally = tallies[item.id];
    scheduler::ItemState state = scheduler::ItemState::kWaiting;
    if (tally.succeeded) {
      state = scheduler::ItemState::kSucceeded;
    } else if (tally.failures >= retry.max_attempts) {
      state = scheduler::ItemState::kFailed;
    }
    snapshot.items.push_back(scheduler::ItemSnapshot{item.id, state, tally.attempts, tally.cancelled});
  }
  return snapshot;
}

}  // namespace millrace::cluster_adapter
