// One session of a real run, on any cluster kind (cluster_kind.h): opens the run (a new one is
// planned and recorded; --resume reads it back from the store, its cluster kind and options
// from the run's parameters), builds the scheduler (on a resume, from what the store recorded
// and what the cluster still runs), reports (the status/metrics server, the progress line),
// drives the run loop until the run is over, stopped (Ctrl-C) or in trouble, and concludes
// (what remains, how to continue). A run has one live owner (run_ownership.h): a resume while
// its owner runs is refused, and one after a crash first ends what the dead session left
// running (or, with leftovers "wait", waits for it and records its outcome). Records wait in
// memory while another process holds the store locked (store_backlog.h), shown in /status and
// /metrics (backlog_status.h). Only how the cluster is built and re-attached differs between kinds.
#pragma once

#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster_adapter/http/status_server.h"
#include "cluster_adapter/realtime/attempt_timeline.h"
#include "cluster_adapter/realtime/cluster_kind.h"
#include "cluster_adapter/realtime/progress_line.h"
#include "cluster_adapter/realtime/run_ownership.h"
#include "cluster_adapter/realtime/run_recorder.h"
#include "cluster_adapter/realtime/shutdown_signal.h"
#include "cluster_adapter/realtime/store_backlog.h"
#include "cluster_adapter/realtime/wall_clock.h"
#include "data/duration_noise.h"
#include "data/trace_store.h"
#include "scheduler/concurrency_policy.h"
#include "scheduler/scheduler.h"
#include "scheduler/work_queue.h"

namespace millrace::cluster_adapter {

struct RealRunOptions {
  std::string cluster = "local";  // the kind of a new run
  std::string resume;             // a run's id or name: continue it
  std::string leftovers;          // --resume: "end" or "wait" what a dead session left (empty: end)
  double leftover_wait_s = 0;     // "wait": the longest wait (0: none but the attempt timeout)
  std::string name;
  std::string units = "units";
  std::string span;
  std::string partitioner;
  RunCommon common;               // and the trace store's path
  bool workers_given = false;     // --workers was given: a resume runs with it, not the recorded count
  int max_attempts = 3;
  double backoff_s = 0;
  scheduler::AutoscaleSettings autoscale;  // --policy autoscale needs its deadline, others take none
  // The order ranges are handed out in; a resume keeps the run's (a different --order given
  // with it is refused).
  scheduler::QueueOrder order = scheduler::QueueOrder::kPlan;
  bool order_given = false;
  int status_port = -1;           // -1: no status server
  data::DurationNoise noise;      // the cost model's (--model), for the ETA's band
  bool with_model = false;        // the items' predictions come from a cost model: the run keeps its noise
  // What a stored comparison chose and predicted, when the run carries it out (cli/stored_plan.h):
  // kept in the run's parameters as "plan". Null: none.
  nlohmann::json chosen_plan;
  // Otherwise, with a model: the makespan predicted as the run starts (cli/run_prediction.h), kept
  // as "predicted". Null: none.
  nlohmann::json predicted_makespan;
  // Where the progress line and the closing count go (a sweep's run keeps stdout for its answer).
  std::ostream* report_to = &std::cout;
};

// Plans a new run's items (called after the cluster kind checked its options).
using PlanItems = std::function<std::vector<data::WorkItem>()>;
// Prints the report of a run that is over, from what the store recorded of it.
using ReportRun = std::function<void(const data::TraceStore& store, std::int64_t run_id)>;

class RealRunSession {
 public:
  // `kinds` must outlive the session. Throws data::Error naming the input on any refusal.
  RealRunSession(RealRunOptions& options, const ClusterKinds& kinds);
  // Runs the session to its end; when the run is over, `report_run` prints its report. Throws
  // data::Error when the run stopped before it was over, or when items failed.
  void run(const PlanItems& plan, const ReportRun& report_run);

 private:
  void open_or_resume(const PlanItems& plan);
  void open_cluster();
  void build_scheduler();
  void report();
  void drive();
  void record_node_arrivals();  // what the cluster learned of node arrivals, to the store
  void conclude(const ReportRun& report_run);

  RealRunOptions& o_;
  const ClusterKinds& kinds_;
  data::TraceStore store_;
  std::optional<StatusServer> server_;
  std::optional<StoreBacklog> writes_;
  WallClock clock_;
  std::int64_t run_id_ = 0;
  std::vector<data::WorkItem> items_;
  ClusterKind* kind_ = nullptr;
  std::optional<RunOwnership> owner_;
  std::string input_;
  std::optional<ShutdownSignal> shutdown_;
  std::unique_ptr<RunCluster> target_;
  std::vector<data::Attempt> recorded_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::optional<RunRecorder> recorder_;
  AttemptTimeline timeline_;
  nlohmann::json prediction_;  // the makespan the run was predicted (data/kept_prediction.h), for /status
  std::optional<ProgressLine> progress_;
  std::string trouble_;
  data::Micros published_ = 0;
  bool publish_owed_ = false;  // a report skipped as too soon: a timer wakes the loop to publish
};

}  // namespace millrace::cluster_adapter
