#include "cli/partition_size.h"

#include <algorithm>
#include <map>

#include "cli/memory_budget.h"
#include "partitioners/registry.h"

namespace millrace::cli {

namespace {

// The option of every partitioning command that sets each PartitionParams field.
const std::string& option_of(const std::string& parameter) {
  static const std::map<std::string, std::string> kOptions = {
      {"ranges", "--range-count"}, {"range_length", "--range-length"}, {"floor", "--floor"}, {"workers", "--workers"}};
  return kOptions.at(parameter);
}

}  // namespace

RangeRequest requested_ranges(const std::string& partitioner, const partitioners::PartitionParams& params) {
  const partitioners::RangeCountBound bound = partitioners::find_partitioner(partitioner).most_ranges(params);
  const double span = static_cast<double>(std::max<std::int64_t>(params.span.count, 1));
  return {std::min(bound.ranges, span), option_of(bound.decided_by) + " " + std::to_string(bound.value)};
}

void require_memory_for_ranges(const std::string& partitioner, const partitioners::PartitionParams& params,
                               double bytes_per_range) {
  const RangeRequest request = requested_ranges(partitioner, params);
  require_memory(request.ranges, bytes_per_range, request.option,
                 "ranges of " + std::to_string(params.span.count) + " units");
}

}  // namespace millrace::cli
