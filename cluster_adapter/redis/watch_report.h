// What `millrace watch --status-port` serves about the run it follows: the same /status (and so
// the same live page) and /metrics as a run millrace drives itself, built from what the watch
// sees of the Redis queue rather than from a scheduler: ranges succeeded and failed, in progress
// with their owners, each worker's recent attempts (the ranges it holds as running ones), the ETA
// from the plan's predictions (`push --model`) over the workers seen, attempt durations and each
// worker's busy time. Fed by the watch's step observer (redis_watch.h), on the watch's thread.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cluster_adapter/http/status_server.h"
#include "cluster_adapter/realtime/attempt_timeline.h"
#include "cluster_adapter/realtime/remaining_work.h"
#include "cluster_adapter/realtime/run_metrics.h"
#include "cluster_adapter/redis/redis_watch.h"
#include "data/records.h"
#include "scheduler/status_report.h"

namespace millrace::cluster_adapter {

class WatchReport {
 public:
  // `items`: the run's plan; `recorded`: its attempts already in the store; `run` (its id, and
  // the model's noise and predicted makespan it kept: data/kept_prediction.h) and `where` (the
  // Redis server, redacted) name it. Throws data::Error for a kept noise that cannot be read.
  WatchReport(const std::vector<data::WorkItem>& items, const std::vector<data::Attempt>& recorded,
              const data::Run& run, std::string where);

  void observe(const WatchStep& step);
  // /status and /metrics as of the last step observed.
  StatusDocuments documents() const;

 private:
  struct ItemRecord {
    std::string range;   // as a person reads it (data::Range::text), the id for other work
    int attempts = 0;
    bool succeeded = false;
    std::string worker;  // of the last attempt
    std::string reason;  // of the last failed attempt
  };
  struct WorkerRecord {
    data::Micros busy = 0;
    int succeeded = 0;
    int failed = 0;
  };
  void record(const data::Attempt& attempt);
  // The range of item `id` as a person reads it; the id itself for an item not in the plan.
  std::string range_text(const std::string& id) const;
  scheduler::StatusReport status() const;

  std::vector<std::string> plan_;  // item ids in plan order
  std::map<std::string, ItemRecord> items_;
  std::map<std::string, WorkerRecord> workers_;
  RemainingWork remaining_;
  AttemptTimeline timeline_;
  DurationHistogram durations_;
  std::int64_t attempts_failed_ = 0;
  std::int64_t run_id_;
  std::string where_;
  nlohmann::json prediction_;
  // The last step's view of the queue.
  data::Micros now_ = 0;
  std::set<std::string> failed_;                        // ranges listed in the failed list
  std::vector<std::string> in_progress_;
  std::map<std::string, RangeHold> holds_;              // range -> owner, since
  std::set<std::string> heartbeating_;
  std::map<std::string, data::Attempt> shown_running_;  // range -> its running attempt in the timeline
};

}  // namespace millrace::cluster_adapter
