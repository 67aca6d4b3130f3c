#include "partitioners/optimal.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/error.h"
#include "partitioners/cost_cuts.h"
#include "partitioners/list_schedule.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {

namespace {

constexpr double kCountMultipliers[] = {1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16};

// The range counts of the candidates: the one asked for (or one placeholder when the worker
// count or alignment leaves none: candidate() refuses those), else the distinct W * m for the
// multipliers (the span's aligned capacity caps them; a count that rounds to the one before is
// skipped, so few workers still try up to 16 ranges each).
std::vector<std::int64_t> range_counts(const PartitionParams& params) {
  if (params.ranges > 0 || params.workers < 1 || params.align < 1) return {params.ranges};
  const std::int64_t capacity = std::max<std::int64_t>(1, params.span.count / params.align);
  std::vector<std::int64_t> counts;
  for (double m : kCountMultipliers) {
    const std::int64_t n = std::min(capacity, static_cast<std::int64_t>(std::llround(params.workers * m)));
    if (!counts.empty() && n == counts.back()) continue;
    counts.push_back(n);
  }
  return counts;
}

}  // namespace

RangeCountBound OptimalPartitioner::most_ranges(const PartitionParams& params) const {
  if (params.ranges > 0) return Partitioner::most_ranges(params);
  return {kCountMultipliers[std::size(kCountMultipliers) - 1] * params.workers, "workers", params.workers};
}

std::size_t OptimalPartitioner::candidates(const PartitionParams& params) const { return range_counts(params).size(); }

Candidate OptimalPartitioner::candidate(const PartitionParams& params, std::size_t i) const {
  check_common_params(params, name());
  if (params.model == nullptr) throw data::Error(name(), "needs a cost model");
  if (params.ranges > 0) {
    return {{min_max_ranges(*params.model, params.span, params.ranges, params.align, params.overlap), params.overlap}, 0};
  }
  if (params.workers < 1) throw data::Error(name(), "needs a worker count >= 1 (or a range count)");
  const std::int64_t n = range_counts(params).at(i);
  std::vector<data::Range> ranges = min_max_ranges(*params.model, params.span, n, params.align, params.overlap);
  const double makespan = lpt_makespan(predicted_costs(*params.model, ranges, params.overlap), params.workers);
  return {{std::move(ranges), params.overlap}, makespan};
}

// The candidates one after the other, only the best so far kept.
Partition OptimalPartitioner::partition(const PartitionParams& params) const {
  Candidate best = candidate(params, 0);
  const std::size_t count = candidates(params);
  for (std::size_t i = 1; i < count; ++i) keep_better(best, candidate(params, i));
  return std::move(best.partition);
}

}  // namespace millrace::partitioners
