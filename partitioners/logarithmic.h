// `logarithmic`: range length shrinks along the sequence, as deployed catch-ups do (the
// experiment that did worse than uniform). The first half of the span is split into P ranges
// (P = workers, the parallelism); each later segment holds P ranges of half the previous
// length, until the length would fall to the floor; the rest is cut into floor-length ranges
// from the top down. Segment ends and cuts are aligned.
#pragma once

#include <algorithm>
#include <cstdint>

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

class LogarithmicPartitioner : public Partitioner {
 public:
  std::string name() const override { return "logarithmic"; }
  std::string description() const override {
    return "first half in P=--workers ranges, then halving lengths down to --floor";
  }
  Partition partition(const PartitionParams& params) const override;
  // Without a floor: a 16th of what one round of P = workers ranges over the span would hold.
  void fill_defaults(PartitionParams& params) const override {
    if (params.floor < 1) params.floor = std::max<std::int64_t>(1, params.span.count / (16LL * params.workers));
  }
  // At most span / floor ranges in its tail, plus the rounds of one range per worker before it
  // (the length halves from span / 2 / workers to the floor: fewer than 64 rounds).
  RangeCountBound most_ranges(const PartitionParams& params) const override {
    constexpr double kMostRounds = 64;
    const double floor = static_cast<double>(std::max<std::int64_t>(params.floor, 1));
    return {static_cast<double>(params.span.count) / floor + kMostRounds * params.workers, "floor", params.floor};
  }
};

}  // namespace millrace::partitioners
