// Comparisons: every combination of partitioner x worker count x queue order, simulated for a
// number of replicas (each with its own seed, so failure injection, start-up samples and, for
// partitions, the range durations drawn from the model's noise differ: sim/duration_draws.h),
// summarised per combination (mean, p10, p50, p90, max makespan) against a lower bound. The
// recorded run keeps its recorded durations in every replica. This answers "which partition and how many
// workers finish soonest and cheapest" offline, from a cost model (and, as a baseline, a recorded
// run replayed with its recorded durations).
//
// Each plan and its work graph are built once and shared by its replicas. Partitions are built and
// simulations run in one pool of std::threads (sim/sweep_pool.h: a slow partition does not hold
// up the simulations of the others); each simulation is single-threaded and seeded from (seed,
// combination, replica) alone, so the results do not depend on the thread count. The lower
// bound of a combination is max(critical path, total work / workers) + the smallest pod
// start-up latency, with work as predicted (partitions) or as recorded (the
// recorded run). Beside it, with a model, the contiguous bound of the worker count: what the
// best contiguous partition of the span could reach (partitioners/contiguous_bound.h) + the same
// start-up latency, so a row's ratio to it says how far the row is from what is possible.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/progress.h"
#include "data/records.h"
#include "partitioners/partitioner.h"
#include "sim/replica_result.h"
#include "sim/simulation.h"

namespace millrace::sim {

// A partition given as it is (a ranges file, `compare --ranges`), simulated at every worker count.
struct ListedPartition {
  std::string name;
  partitioners::Partition partition;
  std::vector<data::Quantities> requests;  // by work range; empty: none asked
  // Positions of partition.work_ranges() in plan order (a ranges file's own order, which a queue
  // hands out as `--order plan`); empty: ascending.
  std::vector<std::size_t> plan_order;
};

struct ComparisonSpec;

// Where the replicas of comparisons are simulated when not here: a pool of workers, each running
// one shard (a block of replicas of one combination, sim/sweep_shards.h) at a time.
struct Elsewhere {
  // Simulates the replicas of several comparisons in one batch (their shards all the items of one
  // run): for each comparison, every replica's result in task order (combination-major, then
  // replica).
  std::function<std::vector<std::vector<ReplicaResult>>(const std::vector<ComparisonSpec>&)> batch;
  int workers = 1;             // shards simulated at once
  int replicas_per_shard = 1;  // the most replicas of one combination a shard holds
};

struct ComparisonSpec {
  const data::CostModel* model = nullptr;
  std::string cluster_source;  // where the simulated cluster's values come from, said in the output
  data::Range span;
  std::vector<std::string> partitioners;
  std::vector<ListedPartition> listed;  // rows after the partitioners', in this order
  std::vector<int> workers;
  std::vector<scheduler::QueueOrder> orders{scheduler::QueueOrder::kPlan};
  int replicas = 1;
  std::uint64_t seed = 1;
  bool noise = true;  // partitions' durations drawn from the model's noise; false: the predictions
  // Template of every simulation: cluster (fail_prob, start-up latency...) and scheduler
  // (policy, retry); nodes, workers and order are set per combination.
  SimulationConfig base;
  // Partition parameters shared by all generators (ranges, range_length, overlap, align, floor);
  // span, model and workers are set per combination, and each generator fills what is left open
  // with its own defaults (partitioners::with_defaults).
  partitioners::PartitionParams partition;
  // A recorded run replayed as a baseline ("recorded" rows): its plan, recorded durations, and
  // predictions from the model for the lpt order.
  std::optional<std::vector<data::WorkItem>> recorded_items;
  std::vector<data::Micros> recorded_durations;  // by position in recorded_items
  // Recorded items whose attempts failed: replayed as they ended (sim/replay.h's ReplayPlan).
  std::unordered_map<std::string, std::vector<RecordedEnd>> recorded_ends;
  unsigned threads = 0;                          // 0: hardware concurrency
  // Simulations done out of all, after each one (from one thread at a time, in order).
  data::ProgressReport progress;
  // Replicas simulated elsewhere (a sweep fanned out over a worker pool): when the comparison is
  // made, it is sent alone as a batch, and the rows are summarised here from its results, the
  // partitions built here as without it. Null: every replica is simulated here.
  std::shared_ptr<const Elsewhere> elsewhere;

  // The threads the sweep runs on: `threads`, or one per hardware thread when it is 0.
  unsigned thread_count() const;
  // Whether replicas differ: durations drawn from the model's noise, failures, start-up samples
  // or a fitted cluster. When none is, every replica gives the same makespan.
  bool draws_at_random() const;
};

// Replicas when none are asked for and replicas differ (ComparisonSpec::draws_at_random): enough
// for the p10 and p90 of the makespan to be two different replicas' (nearest rank over 20: the
// 2nd and the 18th); 1 when every replica would be the same.
inline constexpr int kBandReplicas = 20;

// A plan over a mix of node pools (sim/pool_mix.h): one searched pool's nodes in the mix.
struct MixPart {
  std::string pool;
  bool spot = false;  // its capacity type
  int nodes = 0;
};

// One combination, summarised over its replicas. Times in microseconds.
struct ComparisonRow {
  std::string partitioner;
  int workers = 0;
  std::string order;
  int nodes = 0;                        // plan on node pools: the searched pool's nodes (a mix's in all); else 0
  std::vector<MixPart> mix;             // plan over a mix of pools: each searched pool's nodes; else empty
  std::size_t ranges = 0;
  int replicas = 0;
  data::Micros longest_range = 0;       // predicted (or recorded) duration of the longest range
  data::Micros lower_bound = 0;
  data::Micros contiguous_bound = 0;    // of the span on these workers (0 without a model)
  data::Micros makespan_mean = 0;
  data::Micros makespan_min = 0;
  data::Micros makespan_max = 0;
  data::Micros makespan_stddev = 0;
  data::Micros makespan_p10 = 0;        // nearest-rank quantiles over the replicas
  data::Micros makespan_p50 = 0;
  data::Micros makespan_p90 = 0;
  double ratio_to_lower_bound = 0;      // mean makespan / lower bound
  double ratio_to_contiguous_bound = 0; // mean makespan / contiguous bound (0 without one)
  double utilisation = 0;               // means over replicas
  double node_hours = 0;
  std::optional<CostBand> cost;         // when priced (sim/run_cost.h), over the replicas
  data::Micros tail_below_tenth = 0;
  double failed_attempts = 0;
  int failed_runs = 0;                  // replicas whose run failed or stalled
  double nodes_interrupted = 0;         // spot nodes taken back, mean over replicas
  double attempts_interrupted = 0;      // attempts they took down, mean over replicas
  std::vector<SurvivalRisk> survival_risks;     // spot pools at risk: the riskiest replica's, per pool
  std::vector<data::Micros> makespans;  // per replica, in replica order
  std::vector<bool> replica_failed;     // per replica, in replica order: its run failed or stalled
  std::optional<double> deadline_met;   // plan: fraction of replicas finishing by the deadline
  data::Micros wait_p50 = 0;            // submit -> start waits: percentiles, means over replicas
  data::Micros wait_p90 = 0;
  data::Micros wait_p99 = 0;
  data::Micros wait_max = 0;            // the largest over replicas
  double mean_pending = 0;              // time-averaged pending items, mean over replicas
  std::vector<data::WaitSummary> replica_waits;  // per replica, in replica order
};

struct Comparison {
  std::vector<ComparisonRow> rows;  // recorded rows first, then partitioner x workers x order
};

// Throws data::Error for unknown partitioner names, an empty or non-positive worker list, a
// replica count below 1, a missing model, a partitioner rejecting its parameters, or a span
// (with the partition overlap) or listed range outside the model's span.
Comparison run_comparison(const ComparisonSpec& spec);

// One comparison cut into tasks for a pool of threads (sim/sweep_pool.h, which runs the tasks of
// several at once): first building each partition (a task per candidate of its generator, so
// that the candidate range counts of `optimal` build on several threads, then one joining them:
// partitioners/partitioner.h's Partitioner::candidates), then simulating each replica of each
// combination, a replica as soon as its plan is built. take() and finished() are called by one
// thread at a time (under the pool's lock), run() by several at once, each task once; finish()
// once, after the last task ended.
// A block of replicas of one combination: what one worker of a fanned-out sweep simulates.
// Combinations are numbered as the rows come: the recorded run's (workers, then orders), then
// each partitioner's (workers, then orders), then each listed partition's.
struct Shard {
  std::size_t combination = 0;
  int first_replica = 0;
  int replicas = 1;
};

// How many combinations (rows) a comparison of `spec` has.
std::size_t combinations_of(const ComparisonSpec& spec);

class ComparisonRun {
 public:
  // Validates the spec (throwing what run_comparison throws) and prepares the plans given as
  // they are (the recorded run, listed partitions); with spec.elsewhere, sends it there alone
  // and keeps its replicas' results.
  explicit ComparisonRun(ComparisonSpec spec);
  // The same with every replica's result already simulated elsewhere (one of the comparisons
  // simulate_elsewhere sent), in task order: its replica tasks only take them. Throws
  // data::Error when they are not one per replica.
  ComparisonRun(ComparisonSpec spec, std::vector<ReplicaResult> given);
  // Only `shard`'s replicas, and only the partition they need: the other tasks count as ended.
  // Throws data::Error naming the shard when the spec has no such combination or replicas.
  ComparisonRun(ComparisonSpec spec, const Shard& shard);
  ~ComparisonRun();
  ComparisonRun(const ComparisonRun&) = delete;
  ComparisonRun& operator=(const ComparisonRun&) = delete;

  std::size_t tasks() const;
  // The lowest task that can start now: a partition to build, else a replica whose plan is built.
  // None while the rest wait on partitions being built, or when every task was taken.
  std::optional<std::size_t> take();
  // Runs a taken task; what it throws is kept for finish().
  void run(std::size_t task);
  // Marks a task ended (a partition that failed ends its replicas unrun) and reports the
  // simulations done to spec.progress; true when it was the last task.
  bool finished(std::size_t task);
  // The rows, freeing the plans and replica results; rethrows the error of the lowest failing task.
  Comparison finish();
  // A shard's run (the second constructor): its replicas' results, in replica order; rethrows
  // as finish() does.
  std::vector<ReplicaResult> finish_shard();

 private:
  struct State;
  // What the first two constructors share: `spec` validated and its plans and tasks laid out,
  // `given` (when not empty) kept as its replicas' results.
  void prepare(ComparisonSpec spec, std::vector<ReplicaResult> given);
  std::unique_ptr<State> state_;
};

// Validates every spec (throwing what run_comparison throws) and sends them all as one batch to
// the first's `elsewhere`: each comparison's replica results, in the order of `specs`.
std::vector<std::vector<ReplicaResult>> simulate_elsewhere(const std::vector<ComparisonSpec>& specs);

// The results of `shard`'s replicas of a comparison of `spec`, simulated on this thread, each
// exactly as run_comparison simulates it (the same seed, plan and draws).
std::vector<ReplicaResult> run_shard(const ComparisonSpec& spec, const Shard& shard);

// The seed of one simulation, from the user's seed and what the simulation is, never from which
// thread runs it or when; its range durations are drawn from duration_seed(this).
std::uint64_t replica_seed(std::uint64_t seed, const std::string& plan, int workers, scheduler::QueueOrder order,
                           int replica);

// The lower bound of a plan with these durations on `workers` workers.
data::Micros lower_bound(const std::vector<data::WorkItem>& plan, const std::vector<data::Micros>& durations,
                         int workers, data::Micros startup, const std::string& plan_name);
// The same with the plan and its work graph already built (no copy of the plan, no second graph).
data::Micros lower_bound(const scheduler::PlannedWork& plan, const std::vector<data::Micros>& durations, int workers,
                         data::Micros startup);

// The standard deviation of per-replica values (over the replicas themselves, not a sample's).
double replica_spread(const std::vector<data::Micros>& values);

// Each spot pool at risk (sim/spot_capacity.h) over the rows: the riskiest row's, per pool.
std::vector<SurvivalRisk> survival_risks(const Comparison& comparison);

void print_table(const Comparison& comparison, std::ostream& out);
nlohmann::json to_json(const Comparison& comparison);

}  // namespace millrace::sim
