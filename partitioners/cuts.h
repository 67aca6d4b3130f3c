// Cut-point arithmetic shared by the generators: alignment to a checkpoint stride (floor
// semantics, also for negative unit numbers), equal-count and fixed-length cutting of a
// segment, and turning cut points into a Partition.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

std::int64_t align_down(std::int64_t x, std::int64_t align);
std::int64_t align_up(std::int64_t x, std::int64_t align);

// n - 1 interior cuts splitting `segment` into n ranges of (nearly) equal count, each cut on
// the nearest multiple of `align`. Throws data::Error naming `who` when aligned cuts collide.
std::vector<std::int64_t> cuts_by_count(const data::Range& segment, std::int64_t n, std::int64_t align,
                                        const std::string& who);

// Interior cuts every `length` units from the top of `segment` down, the top one on a multiple
// of `align` (as tip-first deployments cut); the lowest range takes the remainder.
std::vector<std::int64_t> cuts_by_length_from_top(const data::Range& segment, std::int64_t length, std::int64_t align);

// The partition of `span` at the given ascending interior cuts.
Partition partition_from_cuts(const data::Range& span, const std::vector<std::int64_t>& cuts, std::int64_t overlap);

}  // namespace millrace::partitioners
