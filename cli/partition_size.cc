#include "cli/partition_size.h"

#include <algorithm>
#include <cmath>

#include "cli/memory_budget.h"

namespace millrace::cli {

namespace {

// Rounds of one range per worker the logarithmic partitioner cuts at most before its tail: the
// chunk halves from span / 2 / workers down to the floor.
constexpr double kLogarithmicRounds = 64;
// The most ranges the optimal partitioner tries per worker (partitioners/optimal.cc).
constexpr double kOptimalRangesPerWorker = 16;

}  // namespace

RangeRequest requested_ranges(const std::string& partitioner, const partitioners::PartitionParams& params,
                              const std::string& count_option) {
  const double span = static_cast<double>(std::max<std::int64_t>(params.span.count, 1));
  RangeRequest request;
  if (partitioner == "uniform" && params.range_length > 0) {
    request = {span / static_cast<double>(params.range_length) + 1,
               "--range-length " + std::to_string(params.range_length)};
  } else if (params.ranges > 0) {
    request = {static_cast<double>(params.ranges), count_option + " " + std::to_string(params.ranges)};
  } else if (partitioner == "logarithmic") {
    request = {span / static_cast<double>(std::max<std::int64_t>(params.floor, 1)) + kLogarithmicRounds * params.workers,
               "--floor " + std::to_string(params.floor)};
  } else {
    const double per_worker = partitioner == "optimal" ? kOptimalRangesPerWorker : 1;
    request = {per_worker * params.workers, "--workers " + std::to_string(params.workers)};
  }
  request.ranges = std::min(request.ranges, span);
  return request;
}

void require_memory_for_ranges(const std::string& partitioner, const partitioners::PartitionParams& params,
                               double bytes_per_range) {
  const RangeRequest request = requested_ranges(partitioner, params);
  require_memory(request.ranges, bytes_per_range, request.option,
                 "ranges of " + std::to_string(params.span.count) + " units");
}

}  // namespace millrace::cli
