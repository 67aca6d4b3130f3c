// `optimal`: the partition with the smallest predicted makespan for W workers.
// For a range count n it is the exact min-max contiguous partition (partitioners/cost_cuts.h:
// binary search on the bottleneck with a greedy probe, cuts aligned to the checkpoint stride,
// O(50 * n * log bins)). With --range-count the count is fixed; otherwise the count is chosen by
// evaluating the schedule: candidates n = W * m for m in {1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16}
// (within the span's aligned capacity), each scheduled by LPT on W workers
// (partitioners/list_schedule.h); the smallest makespan wins, ties going to fewer ranges. Each
// count is a candidate (Partitioner::candidate), so a caller with threads builds them at once.
// Fewer than W ranges never helps, since the min-max bottleneck only falls as n grows.
// Complexity: O(10 * 50 * n_max * log bins + sum n log n).
#pragma once

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

class OptimalPartitioner : public Partitioner {
 public:
  std::string name() const override { return "optimal"; }
  std::string description() const override {
    return "min predicted makespan on --workers (needs --model; --range-count fixes the count)";
  }
  Partition partition(const PartitionParams& params) const override;
  // One per range count tried; one with --range-count.
  std::size_t candidates(const PartitionParams& params) const override;
  Candidate candidate(const PartitionParams& params, std::size_t i) const override;
  // Without a range count: up to the largest multiple of the worker count it tries.
  RangeCountBound most_ranges(const PartitionParams& params) const override;
};

}  // namespace millrace::partitioners
