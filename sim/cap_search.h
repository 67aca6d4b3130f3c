// The concurrency caps of a job-per-item deployment on a given number of pool nodes (the pool
// question of sim/capacity_plan.h), found by replaying its recording:
//  - the fewest caps that still meet the target: type by type (in name order), the smallest cap
//    of the type meeting it with the types before at the caps found and the ones after at the
//    question's limits (none: their item count), so the caps found meet the target together;
//    the total cap (--workers) likewise, with the types at the question's limits;
//  - the saturating caps: per type (the others uncapped) and in total (the types uncapped), the
//    smallest cap whose mean makespan and mean wait p90 are within noise of no cap at all, so
//    that beyond it more concurrency no longer helps on these nodes (pods only wait for room
//    instead of in the queue). Noise: the larger of two standard errors of the difference over
//    the replicas and 1% of the uncapped mean makespan (identical replicas have no spread).
// Each search is fewest_meeting over [1, items of the type], checked against cap - 1; a
// saturation curve is reported monotone when its mean makespan never rose with a higher cap.
// The searches that do not need one another's answers run side by side, a step each at a time:
// every saturation search, the total's fewest meeting, and the types' fewest meeting one type
// after another (each needs the caps found before it). Each replay is made once, whichever
// searches ask it. Fanned out (spec.elsewhere), a step's replays go to the pool in one batch, the
// first with the saturation curves' powers of two and, in the batch's spare room, the replays
// the searches may ask in their next steps (sim/lookahead_batches.h); the answer is the same.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/capacity_plan.h"

namespace millrace::sim {

struct CapPoint {
  int cap = 0;
  ComparisonRow row;
};

struct CapFinding {
  std::string type;                   // empty: the total cap
  int items = 0;                      // items of the type (all items for the total): a cap never binding
  std::optional<int> fewest_meeting;  // unset when even the question's limit misses the target
  int saturating = 0;
  bool monotone = true;
  std::vector<CapPoint> curve;        // the caps the saturation search evaluated, by cap
};

struct CapAnswer {
  int nodes = 0;
  ComparisonRow uncapped;             // no cap at all on these nodes
  std::vector<CapFinding> types;      // by type name; items without a type have no cap of their own
  CapFinding total;
};

// Throws what replay_on_pool throws; `question` must be a pool question (node_pool set).
CapAnswer find_caps(const CapacityQuestion& question, int nodes);

}  // namespace millrace::sim
