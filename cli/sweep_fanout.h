// `compare` and `plan` fanned out over a worker pool (--cluster kubernetes --mode worker-pool):
// the comparisons they make simulate their replicas on the pool instead of here. Each comparison
// is cut into shards (sim/sweep_shards.h: a combination, a block of replicas) that run as the
// work items of a real run of the scheduler core (cluster_adapter/realtime/real_run_session.h),
// recorded in the store like any run, with its live page and /metrics (--status-port); the pool's
// pods (`millrace sweep-worker`) fetch the bundle (cli/sweep_bundle.h) once each from the lease
// API and send each shard's results with its completion. A shard whose worker dies, whose lease
// expires or that fails is retried by the scheduler core like any range; its results are kept
// once. The rows are then summarised here from the results, as a local run does: the same JSON,
// byte for byte. One run (a batch) holds every comparison the plan knows it will need, whatever
// the results (sim/lookahead_batches.h), so the pool's workers simulate them side by side: the
// count a search waits for with the curve's counts and, in the rounds the batch takes anyway, those
// it may ask next (sim/capacity_plan.h); a node plan's cap searches side by side, each step's caps
// in one batch with what they may ask next, and the spot risk's on-demand copy in the first
// (sim/cap_search.h); a mix's grid points in one batch, its filler searches' certain counts in
// the next (sim/pool_mix.h). What needs an answer first goes after it: a type's fewest cap after
// the types before it, a mix's spot risk after the mix. The shards carry the node pools each
// comparison has (sim/sweep_shards.h).
// The options are the run command's own (the Kubernetes kind and its worker-pool mode), the
// pool's size as --pool-workers (--workers stays the simulated counts).
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/sweep_bundle.h"
#include "cluster_adapter/kubernetes/worker_pool/sweep_exchange.h"
#include "cluster_adapter/realtime/cluster_kind.h"
#include "sim/comparison.h"

namespace millrace::cli {

inline constexpr const char* kFanOutGroup = "Fanning out over a worker pool (--cluster kubernetes)";

struct SweepOptions {
  std::string cluster;   // empty: simulated here
  int pool_workers = 4;
  int shard_replicas = 10;
  int max_attempts = 3;
  int status_port = -1;
  std::shared_ptr<cluster_adapter::SweepExchange> exchange = std::make_shared<cluster_adapter::SweepExchange>();
  // The kinds' options live here (shared: a copy of the options is the same sweep).
  std::shared_ptr<cluster_adapter::ClusterKinds> kinds;
};

// Adds --cluster, --pool-workers, --shard-replicas, --shard-attempts, --status-port and the
// Kubernetes kind's options, all in kFanOutGroup.
void add_sweep_options(CLI::App* command, SweepOptions& options);

// Without --cluster, refuses the other fan-out options, which would do nothing; with it, refuses
// a mode other than worker-pool and a missing --store. Cheap: the commands call it before any
// work or note, so a sweep that cannot fan out is refused at once. Throws data::Error naming the
// option.
void check_fan_out(const SweepOptions& options, const CLI::App& command, const std::string& store);

// With --cluster: checks the options (check_fan_out) and sets `spec` to simulate its replicas on
// the pool (the partitions and rows are still built here, on spec's threads). `command`'s shared
// comparison options (and those `implied`, cli/sweep_bundle.h) make the bundle; `store` records
// the runs of shards. Throws data::Error naming the option for what cannot fan out.
void fan_out(SweepOptions& options, const CLI::App& command, const std::string& store, sim::ComparisonSpec& spec,
             const ImpliedOptions& implied = {});

}  // namespace millrace::cli
