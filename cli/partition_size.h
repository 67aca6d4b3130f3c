// How many ranges a partition request asks for at most (each partitioner's own bound,
// Partitioner::most_ranges) and which option of the command asks for them, so that a command
// refuses a request too big for memory (cli/memory_budget.h) before the partitioner allocates
// anything. Never more than the span has units.
#pragma once

#include <string>

#include "partitioners/partitioner.h"

namespace millrace::cli {

struct RangeRequest {
  double ranges = 0;
  std::string option;  // the option and its value, e.g. "--range-count 1000000000"
};

// Throws data::Error naming the partitioner when it is unknown.
RangeRequest requested_ranges(const std::string& partitioner, const partitioners::PartitionParams& params);

// Throws data::Error naming the option when the requested ranges, `bytes_per_range` each, do
// not fit in the available memory.
void require_memory_for_ranges(const std::string& partitioner, const partitioners::PartitionParams& params,
                               double bytes_per_range);

}  // namespace millrace::cli
