// Cutting a span by predicted cost (data::CostModel), shared by `cost-balanced` and `optimal`.
//
// min_max_ranges: the exact min-max contiguous partition into at most n ranges with cuts on
// multiples of `align`. Method: binary search on the bottleneck C; the probe greedily extends
// each range as far as its cost s(first) + work stays <= C (model.furthest_end, O(log bins),
// then floored to the alignment) and C is feasible when the probe needs <= n ranges. For a
// fixed C the greedy probe needs the fewest ranges (exchange argument: ending a range later
// leaves less for the rest) as long as a later start never costs more than the work it skips,
// s(y) - s(x) <= work(x, y) for x < y; this holds for a constant start-up and for fitted models
// whose start-up steps are small against the work of an aligned step (otherwise the result is
// still valid, but only an upper bound). The bracket starts at [work / n, cost of the whole
// span]; a feasible probe lowers the top to the bottleneck it actually reached, and the search
// stops when the bracket is within 1e-10 of the bottleneck (at most ~35 probes). Complexity: O(I * n * log bins) with I <= ~35; no
// dependence on the number of units.
//
// equal_cost_ranges: n ranges whose costs are all equal up to one alignment step of work:
// the target cost C is bisected until the remainder after n - 1 cuts (each on the aligned point
// whose cost is nearest C) costs C too. Same complexity.
#pragma once

#include <cstdint>
#include <vector>

#include "data/cost_model.h"
#include "data/records.h"

namespace millrace::partitioners {

// Costs are of ranges as run: each also replays `overlap` units before its first unit.
std::vector<data::Range> min_max_ranges(const data::CostModel& model, const data::Range& span, std::int64_t n,
                                        std::int64_t align, std::int64_t overlap);

std::vector<data::Range> equal_cost_ranges(const data::CostModel& model, const data::Range& span, std::int64_t n,
                                           std::int64_t align, std::int64_t overlap);

// Predicted costs (micros) of the ranges as run, overlap included.
std::vector<double> predicted_costs(const data::CostModel& model, const std::vector<data::Range>& ranges,
                                    std::int64_t overlap);

}  // namespace millrace::partitioners
