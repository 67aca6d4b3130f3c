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
  std::string description() const override { return "equal unit counts (by --ranges, or --range-length from the top)"; }
  Partition partition(const PartitionParams& params) const override;
  // One range per worker unless a range count or a range length is given.
  void fill_defaults(PartitionParams& params) const override {
    if (params.ranges < 1 && params.range_length < 1) params.ranges = params.workers;
  }
};

}  // namespace millrace::partitioners
