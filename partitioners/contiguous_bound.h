// The best any contiguous partition could reach: a lower bound on the makespan of every way of
// cutting a span into contiguous ranges (any count, any cuts, each range also replaying
// `overlap` units before its first) and running them on W identical workers, under a cost
// model whose range cost is c = s(start) + work(start, end), start = first - overlap.
// The compare table puts it beside each row's own bound, so a reader sees how far a candidate
// is from what is possible on that many workers, not from its own best schedule.
//
// Why it is a lower bound (for any partition into k ranges, any schedule):
// (1) Bottleneck. Each unit u of the span lies in some range, which starts at some f with
//     lo = span.first - overlap <= f <= u and ends after u, so it costs at least
//         cheapest(u) = min over lo <= f <= u of s(f) + work(f, u + 1),
//     and the makespan is at least B = max over u of cheapest(u). s and w are constant inside
//     a bin, so within bin b (clipped to [lo, span end)) the best start is the bin's last unit
//     or a start in an earlier bin, and cheapest(u) is largest at the bin's last unit:
//         h_b = min(s_b + w_b, h_{b-1} + w_b * len_b)  (first bin: s_b + w_b),  B = max_b h_b.
// (2) Spread. The ranges cover the span and w >= 0, so sum c_i >= work(span) + k * s_min with
//     s_min the least s over [lo, span end). If k >= W the busiest worker carries at least
//     sum / W >= work / W + s_min; if k < W the longest range costs at least sum / k >=
//     work / k + s_min >= work / W + s_min. Either way makespan >= work / W + s_min.
// So makespan >= max(B, work / W + s_min). Costs are the model's exact ones (a simulation rounds
// each range to the microsecond); the result is rounded down. O(bins in the span).
#pragma once

#include <cstdint>

#include "data/cost_model.h"
#include "data/records.h"
#include "data/time.h"

namespace millrace::partitioners {

struct ContiguousBound {
  double bottleneck = 0;  // B: the cheapest range containing the costliest unit, micros
  double spread = 0;      // work / W + s_min, micros
  data::Micros bound = 0; // floor(max(bottleneck, spread))
};

// Throws data::Error when workers < 1, overlap < 0 or [span.first - overlap, span end) reaches
// outside the model's span.
ContiguousBound contiguous_bound(const data::CostModel& model, const data::Range& span, std::int64_t overlap,
                                 int workers);

}  // namespace millrace::partitioners
