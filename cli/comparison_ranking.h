// The answer `compare` leads with: at each worker count, which candidate finishes soonest and by
// how much. Candidates are ranked by their median makespan over the replicas; each other one is
// said as a multiple of the best's ("1.08 times the best"), and as beyond the replicas' spread
// when its p10 lies above the best's p90 (the two p10-p90 bands do not overlap), else within it.
// One line per worker count, so the first line printed holds the first count's answer.
#pragma once

#include <string>
#include <vector>

#include "sim/comparison.h"

namespace millrace::cli {

struct RankedRow {
  const sim::ComparisonRow* row = nullptr;
  double times_best = 1;       // median makespan / the best's median makespan
  bool beyond_spread = false;  // its p10 above the best's p90
  bool extrapolated = false;   // its ranges far longer than the recorded ones (mark_extrapolated)
};

// Ranges more than this many times the recorded ranges' median length, for which the fit's noise
// did not narrow (windows of recorded ranges that long kept more than kUnnarrowedSpread of a
// single range's spread, as a coarse fit's correlated residuals do), are extrapolated: the spread
// drawn for them is the recorded ranges' carried to lengths the recording does not show it for.
inline constexpr double kExtrapolatedLength = 4;
inline constexpr double kUnnarrowedSpread = 0.5;
// The ranking line names the best and at most this many others (the table has them all).
inline constexpr std::size_t kRankedOthers = 4;

// Per worker count, in the order the counts first appear in the rows: its rows ranked, best first
// (ties in row order). The pointers point into `comparison`, which must outlive the result.
std::vector<std::vector<RankedRow>> rank_by_workers(const sim::Comparison& comparison);

// Marks the partitions' rows whose mean range length (the span over the range count, plus the
// overlap) is more than kExtrapolatedLength times the recorded median length the model's noise
// keeps (data::DurationNoise::lengths; a model without them marks nothing) and whose relative
// spread at that length is above kUnnarrowedSpread.
void mark_extrapolated(std::vector<std::vector<RankedRow>>& ranking, const sim::ComparisonSpec& spec);

// "on 192 workers: optimal fastest, 23.10 h (p10-p90 22.95-23.30 h); then cost-balanced 1.01
// times the best (within the replicas' spread), uniform 1.08 times (beyond it)\n", a line per
// worker count, the best and kRankedOthers others ("and 3 more, up to 1.40 times"); candidates are named partitioner/order where a count has rows of several orders,
// "(extrapolated)" after an extrapolated one, and a line saying what that means ends the text.
std::string ranking_text(const std::vector<std::vector<RankedRow>>& ranking);

}  // namespace millrace::cli
