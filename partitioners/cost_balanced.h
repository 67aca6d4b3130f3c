// `cost-balanced`: n ranges of equal predicted cost (start-up + work) under the cost model,
// equal up to the work of one alignment step; n = --ranges, or --workers when not given.
#pragma once

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

class CostBalancedPartitioner : public Partitioner {
 public:
  std::string name() const override { return "cost-balanced"; }
  std::string description() const override { return "equal predicted cost per range (needs --model)"; }
  Partition partition(const PartitionParams& params) const override;
  // One range per worker unless a range count is given.
  void fill_defaults(PartitionParams& params) const override {
    if (params.ranges < 1) params.ranges = params.workers;
  }
};

}  // namespace millrace::partitioners
