// The cluster model (data/cluster_model.h) fitted from recordings, each on its own capacity
// (sim/recorded_capacity.h):
//  - one Job per item (job-per-item runs, pod and job traces): the placement delay that
//    capacity does not explain, from each item's submission (its first attempt's, else the
//    item's submit time) to its placement (else its start: the residual then holds the start-up). An item placed while a slot stood free waited for no capacity,
//    so its whole wait (submission to placement) is residual; one placed when every slot was
//    held may also have waited for capacity: its residual lies between the last moment since
//    its submission when it would have fitted and its whole wait. The residual's distribution is
//    estimated from both by Turnbull's estimate for interval-censored data.
//    The per-Job overhead is each item's residual plus its start-up.
//  - pool workers: a worker's pod is placed once, for its first item, whose wait is the pod's
//    placement (the only Job a pool shows); every later item on it shows the gap between the
//    previous item's end and its own start.
//  - start-up: placed -> working wherever both are recorded. Failures: per attempt by reason,
//    and when (the failed attempt's duration over its item's succeeded one).
//  - spot interruptions, per pool: departures of spot nodes per node-hour (sim/interruption_fit.h).
//  - node provisioning, per pool: from a node's order, the earliest time the scheduler told a pod
//    first placed on it that it fits on no node (before the node arrived), to its arrival, when it
//    became ready (else was created). A node no such pod was placed on is left out.
// A part the recordings cannot show (no phases, too few failures, no node arrivals) is kept
// unidentified with the reason, and never drawn.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/cluster_model.h"
#include "sim/recorded_capacity.h"

namespace millrace::sim {

struct ClusterFitOptions {
  std::size_t min_per_type = 50;   // observations a type needs for quantiles of its own
  std::size_t min_failures = 5;    // failures in all before failures are identified
};

struct ClusterFit {
  data::ClusterModel model;
  std::size_t attempts = 0;
  std::size_t with_submitted = 0;  // attempts with a recorded submission
  std::size_t with_placed = 0;     // attempts with a recorded placement
  std::size_t bounded = 0;         // items placed while every slot was held: residual in an interval
  std::size_t nodes_arrived = 0;   // node arrivals recorded
  std::size_t nodes_ordered = 0;   // of them, with their order told by an unschedulable pod placed on them
  // A recording without placement times gave waits from submission to start: the placement
  // residual then holds the start-up too.
  bool residual_includes_startup = false;
};

// Throws data::Error naming a recording that has no attempts.
ClusterFit fit_cluster(const std::vector<Recording>& recordings, const ClusterFitOptions& options = {});

// The fit report's cluster part, one part a line (observations, p50/p90/p99/max; per type
// indented), unidentified parts with their reason.
std::string format_cluster_fit(const ClusterFit& fit);

}  // namespace millrace::sim
