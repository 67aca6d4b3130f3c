#include "data/queue_waits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "data/run_summary.h"

namespace millrace::data {

Micros nearest_rank(const std::vector<Micros>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

WaitSummary summarize_waits(const std::vector<QueuedItem>& items, Micros span_start, Micros span_end) {
  WaitSummary s;
  s.items = items.size();
  std::vector<Micros> waits;
  waits.reserve(items.size());
  double pending_time = 0;
  for (const QueuedItem& q : items) {
    const Micros wait = std::max<Micros>(0, q.start - q.submit);
    waits.push_back(wait);
    pending_time += static_cast<double>(wait);
  }
  std::sort(waits.begin(), waits.end());
  s.p50 = nearest_rank(waits, 0.50);
  s.p90 = nearest_rank(waits, 0.90);
  s.p99 = nearest_rank(waits, 0.99);
  s.max = waits.empty() ? 0 : waits.back();
  if (span_end > span_start) s.mean_pending = pending_time / static_cast<double>(span_end - span_start);
  return s;
}

nlohmann::json to_json(const WaitSummary& w) {
  return {{"items", w.items}, {"p50_us", w.p50}, {"p90_us", w.p90}, {"p99_us", w.p99}, {"max_us", w.max},
          {"mean_pending", w.mean_pending}};
}

std::string waits_text(const WaitSummary& w) {
  char pending[64];
  std::snprintf(pending, sizeof pending, "; %.2f pending on average", w.mean_pending);
  return "p50 " + duration_text(w.p50) + ", p90 " + duration_text(w.p90) + ", p99 " + duration_text(w.p99) +
         ", max " + duration_text(w.max) + pending;
}

}  // namespace millrace::data
