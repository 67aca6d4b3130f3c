// `uniform`: ranges of equal unit count, the production baseline. Either a range count
// (cuts at equal fractions of the span) or a range length (cut from the top down every
// `range_length` units, as tip-first deployments do: each END differs by the length and the
// lowest range takes the remainder). Optional overlap and checkpoint alignment.
#pragma once

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

class UniformPartitioner : public Partitioner {
 public:
  std::string name() const override { return "uniform"; }
  std::string description() const override { return "equal unit counts (by --range-count, or --range-length from the top)"; }
  Partition partition(const PartitionParams& params) const override;
  // One range per worker unless a range count or a range length is given.
  void fill_defaults(PartitionParams& params) const override {
    if (params.ranges < 1 && params.range_length < 1) params.ranges = params.workers;
  }
  // A range length cuts span / length whole ranges, plus at most two partial ones: the remainder
  // and the piece an aligned top cut leaves.
  RangeCountBound most_ranges(const PartitionParams& params) const override {
    if (params.range_length < 1) return Partitioner::most_ranges(params);
    return {static_cast<double>(params.span.count / params.range_length + 2), "range_length", params.range_length};
  }
};

}  // namespace millrace::partitioners
