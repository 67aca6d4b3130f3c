#include "data/run_summary.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <unordered_map>

#include "data/run_tally.h"

namespace millrace::data {

StragglerTail straggler_tail(std::vector<Micros> starts, std::vector<Micros> ends, Micros run_start,
                             Micros run_end, std::size_t workers) {
  return BusySweep::of(std::move(starts), std::move(ends)).tail(run_start, run_end, workers);
}

std::vector<TailRow> tail_rows(const StragglerTail& tail) {
  char share[32];
  std::snprintf(share, sizeof share, "%.1f %%", 100 * tail.utilisation_last_tenth);
  return {{"tail: < 10% of peak busy", duration_text(tail.below_tenth)},
          {"tail: last attempt alone", duration_text(tail.last_alone)},
          {"tail: utilisation last 10%", share}};
}

nlohmann::json to_json(const StragglerTail& tail) {
  return {{"below_tenth_us", tail.below_tenth},
          {"last_alone_us", tail.last_alone},
          {"utilisation_last_tenth", tail.utilisation_last_tenth}};
}

namespace {

// Each planned item's wait from its submit time to its first start (data/queue_waits.h).
void add_waits(const std::vector<WorkItem>& items, const std::vector<Micros>& first_start, Micros last_end,
               RunSummary& s) {
  std::vector<Micros> waits;
  Micros first_submit = last_end;
  for (std::size_t i = 0; i < items.size(); ++i) {
    s.has_submit_times = s.has_submit_times || items[i].submit_at > 0;
    if (first_start[i] == RunTally::kNotStarted) {
      ++s.never_started;
      continue;
    }
    waits.push_back(first_start[i] - items[i].submit_at);
    first_submit = std::min({first_submit, items[i].submit_at, first_start[i]});
  }
  if (s.has_submit_times) s.waits = summarize_wait_times(std::move(waits), first_submit, last_end);
}

}  // namespace

RunSummary summarize(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts, std::size_t longest) {
  std::unordered_map<std::string, std::uint32_t> item_numbers;
  for (const WorkItem& item : items) item_numbers.emplace(item.id, static_cast<std::uint32_t>(item_numbers.size()));
  const auto unplanned = static_cast<std::uint32_t>(items.size());
  std::unordered_map<std::string, std::uint32_t> worker_numbers;
  RunTally tally(items.size(), longest, RunTally::Sweep::kNone);
  std::vector<Micros> starts, ends;  // of the attempts on workers that lasted: the busy profile
  Micros work_time = 0;
  for (const Attempt& a : attempts) {
    AttemptSpan span;
    auto item = item_numbers.find(a.item_id);
    span.item = item == item_numbers.end() ? unplanned : item->second;
    if (!a.worker.empty()) {
      span.worker = worker_numbers.emplace(a.worker, static_cast<std::uint32_t>(worker_numbers.size())).first->second;
      if (a.end > a.start) {
        starts.push_back(a.start);
        ends.push_back(a.end);
      }
    }
    span.start = a.start;
    span.end = a.end;
    span.outcome = a.outcome;
    tally.ended(span, false);
    work_time += a.work_time.value_or(0);
  }
  RunSummary s = tally.summary(BusySweep::of(std::move(starts), std::move(ends)));
  s.work_time = work_time;
  for (const auto& [span, position] : tally.longest()) s.longest.push_back(attempts[position]);
  add_waits(items, tally.first_starts(), tally.last_end(), s);
  return s;
}

}  // namespace millrace::data
