// Capacity planning: the fewest workers (and the partition) that meet a deadline with a given
// confidence (the fraction of replicas, with failure injection, finishing by the deadline),
// found by simulation (sim/comparison.h), plus the cost curve of workers vs makespan vs
// node-hours.
//
// Search: binary search over [min_workers, max_workers] on "some partitioner meets the
// deadline", which assumes meeting it is monotone in the worker count. That is not guaranteed
// (list-scheduling anomalies, `optimal` choosing its range count per worker count), so the
// answer W is checked against W - 1, and while W - 1 also meets the deadline the search walks
// down; `monotone` reports whether the evaluated curve's best makespan never rose with more
// workers. Cost: O(log max_workers) comparisons plus the curve's points (powers of two up to
// max_workers, and the answer).
#pragma once

#include <functional>
#include <optional>

#include "sim/comparison.h"

namespace millrace::sim {

struct CapacityQuestion {
  ComparisonSpec spec;          // its worker counts are ignored; recorded rows are not searched
  data::Micros deadline = 0;
  double confidence = 0.9;
  int min_workers = 1;
  int max_workers = 1;
  // Before the simulations of each worker count evaluated (theirs are told to spec.progress).
  std::function<void(int workers)> evaluating;
};

struct CapacityAnswer {
  std::optional<ComparisonRow> best;  // fewest workers meeting the deadline, best partitioner there
  ComparisonRow best_at_max;          // what max_workers achieves (for the message when unmet)
  Comparison evaluated;               // every row simulated, by workers then partitioner
  std::vector<ComparisonRow> curve;   // the best row per evaluated worker count, by workers
  bool monotone = true;
};

// Throws data::Error for a non-positive deadline, confidence outside (0, 1] or bad worker bounds,
// and whatever run_comparison throws.
CapacityAnswer plan_capacity(const CapacityQuestion& question);

}  // namespace millrace::sim
