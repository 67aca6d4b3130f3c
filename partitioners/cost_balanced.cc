#include "partitioners/cost_balanced.h"

#include "data/error.h"
#include "partitioners/cost_cuts.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {

Partition CostBalancedPartitioner::partition(const PartitionParams& params) const {
  check_common_params(params, name());
  if (params.model == nullptr) throw data::Error(name(), "needs a cost model");
  const std::int64_t n = params.ranges > 0 ? params.ranges : params.workers;
  if (n < 1) throw data::Error(name(), "needs a range count or a worker count >= 1");
  if (n > params.span.count) {
    throw data::Error(name(), "span of " + std::to_string(params.span.count) + " units is smaller than the range count " +
                                  std::to_string(n));
  }
  return {equal_cost_ranges(*params.model, params.span, n, params.align, params.overlap), params.overlap};
}

}  // namespace millrace::partitioners
