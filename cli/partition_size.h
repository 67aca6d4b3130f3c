// How many ranges a partition request asks for, and which option asks for them, so that a
// command refuses a request too big for memory (cli/memory_budget.h) before the partitioner
// allocates anything: `--ranges N`, `--range-length L` (uniform: span / L), `--floor F`
// (logarithmic: at most span / F in its tail, plus a few rounds of one range per worker) and
// `--workers W` (cost-balanced: W ranges, optimal: up to 16 W). Never more than the span has
// units.
#pragma once

#include <string>

#include "partitioners/partitioner.h"

namespace millrace::cli {

struct RangeRequest {
  double ranges = 0;
  std::string option;  // the option and its value, e.g. "--ranges 1000000000"
};

// `count_option` is the option that sets params.ranges in the calling command.
RangeRequest requested_ranges(const std::string& partitioner, const partitioners::PartitionParams& params,
                              const std::string& count_option = "--ranges");

// Throws data::Error naming the option when the requested ranges, `bytes_per_range` each, do
// not fit in the available memory.
void require_memory_for_ranges(const std::string& partitioner, const partitioners::PartitionParams& params,
                               double bytes_per_range);

}  // namespace millrace::cli
