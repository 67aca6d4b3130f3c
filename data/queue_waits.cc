#include "data/queue_waits.h"

#include <algorithm>
#include <cmath>

#include "data/readable_duration.h"
#include "data/run_summary.h"

namespace millrace::data {

namespace {

// The 1-based rank of the nearest-rank percentile p among `count` values: ceil(p x count), at
// least 1.
std::size_t rank_of(std::size_t count, double p) {
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(count)));
  return std::clamp<std::size_t>(rank, 1, count);
}

}  // namespace

Micros nearest_rank(const std::vector<Micros>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[rank_of(sorted.size(), p) - 1];
}

// The percentiles are picked with nth_element, each inside the part below the higher one (the
// values are never sorted); the picked values are those a sort would put there.
WaitSummary summarize_wait_times(std::vector<Micros> waits, Micros span_start, Micros span_end) {
  WaitSummary s;
  s.items = waits.size();
  double pending_time = 0;
  for (Micros& wait : waits) {
    wait = std::max<Micros>(0, wait);
    pending_time += static_cast<double>(wait);
  }
  if (!waits.empty()) {
    auto pick = [&](double p, std::vector<Micros>::iterator end) {
      const auto at = waits.begin() + static_cast<std::ptrdiff_t>(rank_of(waits.size(), p) - 1);
      std::nth_element(waits.begin(), at, end);
      return at;
    };
    s.max = *std::max_element(waits.begin(), waits.end());
    const auto p99 = pick(0.99, waits.end());
    s.p99 = *p99;
    const auto p90 = pick(0.90, p99 + 1);
    s.p90 = *p90;
    s.p50 = *pick(0.50, p90 + 1);
  }
  if (span_end > span_start) s.mean_pending = pending_time / static_cast<double>(span_end - span_start);
  return s;
}

nlohmann::json to_json(const WaitSummary& w) {
  return {{"items", w.items}, {"p50_us", w.p50}, {"p90_us", w.p90}, {"p99_us", w.p99}, {"max_us", w.max},
          {"mean_pending", w.mean_pending}};
}

std::string waits_text(const WaitSummary& w) {
  return "p50 " + readable_duration(w.p50) + ", p90 " + readable_duration(w.p90) + ", p99 " + readable_duration(w.p99) +
         ", max " + readable_duration(w.max) + "; " + readable_number(w.mean_pending) + " pending on average";
}

}  // namespace millrace::data
