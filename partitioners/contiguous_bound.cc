#include "partitioners/contiguous_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "data/error.h"
#include "data/model_span.h"

namespace millrace::partitioners {

ContiguousBound contiguous_bound(const data::CostModel& model, const data::Range& span, std::int64_t overlap,
                                 int workers) {
  if (workers < 1) throw data::Error("contiguous bound", "needs at least one worker");
  if (overlap < 0) throw data::Error("contiguous bound", "overlap must not be negative");
  const std::int64_t lo = span.first - overlap;
  const std::int64_t hi = span.end();
  data::require_within_model_span(model, {lo, hi - lo}, "span " + data::span_text(span) + " with overlap " +
                                                            std::to_string(overlap));
  ContiguousBound out;
  double cheapest_to_bin_end = 0;  // h of the previous clipped bin
  double least_startup = std::numeric_limits<double>::infinity();
  bool first_bin = true;
  for (const data::CostBin& bin : model.bins()) {
    const std::int64_t from = std::max(bin.range.first, lo);
    const std::int64_t to = std::min(bin.range.end(), hi);
    if (from >= to) continue;
    const double alone = bin.startup_micros + bin.micros_per_unit;
    const double extended = cheapest_to_bin_end + bin.micros_per_unit * static_cast<double>(to - from);
    cheapest_to_bin_end = first_bin ? alone : std::min(alone, extended);
    first_bin = false;
    out.bottleneck = std::max(out.bottleneck, cheapest_to_bin_end);
    least_startup = std::min(least_startup, bin.startup_micros);
  }
  out.spread = model.work(span.first, span.end()) / static_cast<double>(workers) + least_startup;
  out.bound = static_cast<data::Micros>(std::floor(std::max(out.bottleneck, out.spread)));
  return out;
}

}  // namespace millrace::partitioners
