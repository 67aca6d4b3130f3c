#include "partitioners/optimal.h"

#include <cmath>

#include "data/error.h"
#include "partitioners/cost_cuts.h"
#include "partitioners/list_schedule.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {

namespace {

constexpr double kCountMultipliers[] = {1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16};

}  // namespace

RangeCountBound OptimalPartitioner::most_ranges(const PartitionParams& params) const {
  if (params.ranges > 0) return Partitioner::most_ranges(params);
  return {kCountMultipliers[std::size(kCountMultipliers) - 1] * params.workers, "workers", params.workers};
}

Partition OptimalPartitioner::partition(const PartitionParams& params) const {
  check_common_params(params, name());
  if (params.model == nullptr) throw data::Error(name(), "needs a cost model");
  if (params.ranges > 0) return {min_max_ranges(*params.model, params.span, params.ranges, params.align, params.overlap), params.overlap};
  if (params.workers < 1) throw data::Error(name(), "needs a worker count >= 1 (or a range count)");
  const std::int64_t capacity = std::max<std::int64_t>(1, params.span.count / params.align);
  std::vector<data::Range> best;
  double best_makespan = 0;
  std::int64_t previous = 0;
  for (double m : kCountMultipliers) {
    const std::int64_t n = std::min(capacity, static_cast<std::int64_t>(std::llround(params.workers * m)));
    if (n == previous) break;
    previous = n;
    std::vector<data::Range> ranges = min_max_ranges(*params.model, params.span, n, params.align, params.overlap);
    const double makespan = lpt_makespan(predicted_costs(*params.model, ranges, params.overlap), params.workers);
    if (best.empty() || makespan < best_makespan) {
      best_makespan = makespan;
      best = std::move(ranges);
    }
  }
  return {best, params.overlap};
}

}  // namespace millrace::partitioners
