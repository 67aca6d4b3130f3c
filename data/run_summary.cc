#include "data/run_summary.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <unordered_map>

namespace millrace::data {

namespace {

// The value below which `fraction` of the sorted values lie (nearest rank).
Micros rank(const std::vector<Micros>& sorted, double fraction) {
  auto index = static_cast<std::size_t>(fraction * static_cast<double>(sorted.size()) + 0.999999);
  return sorted[std::clamp<std::size_t>(index, 1, sorted.size()) - 1];
}

// Counts the sorted `values` at or before a time (std::upper_bound's position) in a few steps
// whatever their number: the time axis is cut into power-of-two wide buckets, about one per two
// values, each knowing how many values lie before it, so a search only halves the range of its
// own bucket (without a branch on the comparison). Values bunched into one bucket cost a
// binary search of that bucket: never more than one over all of them.
class SortedTimes {
 public:
  explicit SortedTimes(const std::vector<Micros>& sorted) : values_(sorted) {
    if (values_.empty()) return;
    first_ = values_.front();
    const std::uint64_t span = offset(values_.back());
    while (shift_ < 63 && (span >> shift_) > values_.size() / 2) ++shift_;
    const std::size_t buckets = static_cast<std::size_t>(span >> shift_) + 1;
    before_bucket_.resize(buckets + 1);
    std::size_t count = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
      const std::uint64_t bucket_start = static_cast<std::uint64_t>(b) << shift_;
      while (count < values_.size() && offset(values_[count]) < bucket_start) ++count;
      before_bucket_[b] = static_cast<std::uint32_t>(count);
    }
    before_bucket_[buckets] = static_cast<std::uint32_t>(values_.size());
  }

  std::size_t at_or_before(Micros at) const {
    if (values_.empty() || at < first_) return 0;
    const auto bucket = static_cast<std::size_t>(offset(at) >> shift_);
    if (bucket + 1 >= before_bucket_.size()) return values_.size();
    std::size_t begin = before_bucket_[bucket];
    std::size_t length = before_bucket_[bucket + 1] - begin;
    if (length == 0) return begin;
    const Micros* base = values_.data() + begin;
    while (length > 1) {
      const std::size_t half = length / 2;
      base = base[half - 1] <= at ? base + half : base;
      length -= half;
    }
    return static_cast<std::size_t>(base - values_.data()) + (*base <= at ? 1 : 0);
  }

 private:
  // Time from the first value (no overflow whatever the times: unsigned arithmetic).
  std::uint64_t offset(Micros at) const { return static_cast<std::uint64_t>(at) - static_cast<std::uint64_t>(first_); }

  const std::vector<Micros>& values_;
  Micros first_ = 0;
  int shift_ = 0;
  std::vector<std::uint32_t> before_bucket_;  // per bucket, then the total: values before it
};

}  // namespace

BusyProfile::BusyProfile(std::vector<Micros> starts, std::vector<Micros> ends)
    : starts_(std::move(starts)), ends_(std::move(ends)) {
  if (!std::is_sorted(ends_.begin(), ends_.end())) std::sort(ends_.begin(), ends_.end());
  const SortedTimes end_times(ends_);
  starts_in_gap_.assign(ends_.size() + 1, 0);
  for (Micros start : starts_) ++starts_in_gap_[end_times.at_or_before(start)];
  int busy = 0;
  for (std::size_t k = 0; k < ends_.size(); ++k) {
    busy += static_cast<int>(starts_in_gap_[k]);
    peak_ = std::max(peak_, busy);
    --busy;
  }
}

// The busy count steps through the gaps and ends in time order: all of a gap's starts, then the
// end after it. Where "alone" began at a start, that start's time is looked up once at the end.
StragglerTail BusyProfile::tail(Micros run_start, Micros run_end, std::size_t workers) const {
  StragglerTail tail;
  if (starts_.empty() || run_end <= run_start) return tail;
  const int threshold = std::max(1, (peak_ + 9) / 10);
  Micros below_since = run_start;
  Micros alone_since = run_start;
  constexpr std::size_t kNoGap = SIZE_MAX;
  std::size_t alone_since_start_in = kNoGap;  // alone since the only start in this gap
  auto alone_from = [&](Micros at) {
    alone_since = at;
    alone_since_start_in = kNoGap;
  };
  int busy = 0;
  for (std::size_t k = 0; k < ends_.size(); ++k) {
    if (starts_in_gap_[k] > 0) {
      const int before = busy;
      busy += static_cast<int>(starts_in_gap_[k]);
      if (busy >= threshold) below_since = run_end;
      if (busy >= 2) {
        alone_from(run_end);
      } else if (before == 0) {
        alone_since_start_in = k;
      }
    }
    const int before = busy;
    --busy;
    if (before >= threshold && busy < threshold) below_since = ends_[k];
    if (busy >= threshold) below_since = run_end;
    if (busy >= 2) alone_from(run_end);
    if (busy == 1 && before != 1) alone_from(ends_[k]);
  }
  if (alone_since_start_in != kNoGap) {
    const std::size_t k = alone_since_start_in;
    for (Micros start : starts_) {
      if ((k == 0 || ends_[k - 1] <= start) && start < ends_[k]) alone_since = start;
    }
  }
  tail.below_tenth = run_end - below_since;
  tail.last_alone = run_end - alone_since;
  // Busy time after `from`: each attempt ending after it counts from max(start, from), and an
  // attempt starting after `from` also ends after it.
  const Micros from = run_end - (run_end - run_start) / 10;
  const auto first_late_end = std::upper_bound(ends_.begin(), ends_.end(), from);
  const auto ending_late = static_cast<Micros>(ends_.end() - first_late_end);
  Micros busy_late = 0;
  for (auto end = first_late_end; end != ends_.end(); ++end) busy_late += *end;
  Micros starting_late = 0;
  for (Micros start : starts_) {
    if (start <= from) continue;
    ++starting_late;
    busy_late -= start;
  }
  busy_late -= from * (ending_late - starting_late);
  Micros window = run_end - from;
  if (window > 0 && workers > 0) {
    tail.utilisation_last_tenth = static_cast<double>(busy_late) / (static_cast<double>(window) * workers);
  }
  return tail;
}

StragglerTail straggler_tail(std::vector<Micros> starts, std::vector<Micros> ends, Micros run_start,
                             Micros run_end, std::size_t workers) {
  return BusyProfile(std::move(starts), std::move(ends)).tail(run_start, run_end, workers);
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

std::string duration_text(Micros us) {
  char text[64];
  double s = seconds_from_micros(us);
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%.3f s (%.2f h)", s, s / 3600);
  } else {
    std::snprintf(text, sizeof text, "%.3f s", s);
  }
  return text;
}

RunSummary summarize_spans(const std::vector<AttemptSpan>& spans, std::size_t items, std::size_t workers,
                           std::size_t longest_count, std::vector<std::size_t>& longest) {
  RunSummary s;
  s.items = items;
  s.attempts = spans.size();
  longest.clear();
  if (spans.empty()) {
    s.items_without_success = items;
    return s;
  }
  Micros first_start = spans.front().start, last_end = spans.front().end;
  std::vector<std::uint8_t> succeeded(items, 0);  // bytes, not bits: set per attempt
  std::vector<Micros> busy(workers, 0);
  std::vector<std::uint8_t> ran(workers, 0);
  std::vector<Micros> starts, ends;
  starts.reserve(spans.size());
  ends.reserve(spans.size());
  for (const AttemptSpan& a : spans) {
    first_start = std::min(first_start, a.start);
    last_end = std::max(last_end, a.end);
    s.total_work += a.end - a.start;
    if (a.outcome == Outcome::kFailed || a.outcome == Outcome::kCancelled) ++s.failed_attempts;
    if (a.outcome == Outcome::kSucceeded && a.item < items) succeeded[a.item] = true;
    if (a.worker == AttemptSpan::kNoWorker) continue;
    busy[a.worker] += a.end - a.start;
    ran[a.worker] = true;
    if (a.end > a.start) {
      starts.push_back(a.start);
      ends.push_back(a.end);
    }
  }
  s.makespan = last_end - first_start;
  s.items_without_success = static_cast<std::size_t>(std::count(succeeded.begin(), succeeded.end(), 0));

  // Longest first; ties by start, item, worker, so the order the attempts come in does not matter.
  // The kept ones are found in one pass (most attempts are not longer than the last kept one).
  auto longer = [&](std::size_t a, std::size_t b) {
    const AttemptSpan& x = spans[a];
    const AttemptSpan& y = spans[b];
    return std::make_tuple(y.end - y.start, x.start, x.item, x.worker, a) <
           std::make_tuple(x.end - x.start, y.start, y.item, y.worker, b);
  };
  for (std::size_t i = 0; i < spans.size() && longest_count > 0; ++i) {
    if (longest.size() == longest_count && !longer(i, longest.back())) continue;
    if (longest.size() == longest_count) longest.pop_back();
    longest.insert(std::upper_bound(longest.begin(), longest.end(), i, longer), i);
  }

  std::vector<Micros> busy_times;
  for (std::size_t w = 0; w < workers; ++w) {
    if (ran[w]) busy_times.push_back(busy[w]);
  }
  s.workers = busy_times.size();
  if (s.workers == 0) return s;
  std::sort(busy_times.begin(), busy_times.end());
  s.busy_min = busy_times.front();
  s.busy_median = rank(busy_times, 0.5);
  s.busy_max = busy_times.back();
  s.tail = straggler_tail(std::move(starts), std::move(ends), first_start, last_end, s.workers);
  return s;
}

namespace {

// Each planned item's wait from its submit time to its first start (data/queue_waits.h).
void add_waits(const std::vector<WorkItem>& items, const std::vector<AttemptSpan>& spans, RunSummary& s) {
  constexpr Micros kNever = -1;
  std::vector<Micros> first_start(items.size(), kNever);
  Micros last_end = 0;
  for (const AttemptSpan& a : spans) {
    last_end = std::max(last_end, a.end);
    if (a.item >= items.size()) continue;
    if (first_start[a.item] == kNever || a.start < first_start[a.item]) first_start[a.item] = a.start;
  }
  std::vector<Micros> waits;
  Micros first_submit = last_end;
  for (std::size_t i = 0; i < items.size(); ++i) {
    s.has_submit_times = s.has_submit_times || items[i].submit_at > 0;
    if (first_start[i] == kNever) {
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
  std::vector<AttemptSpan> spans;
  spans.reserve(attempts.size());
  Micros work_time = 0;
  for (const Attempt& a : attempts) {
    AttemptSpan span;
    auto item = item_numbers.find(a.item_id);
    span.item = item == item_numbers.end() ? unplanned : item->second;
    if (!a.worker.empty()) {
      span.worker = worker_numbers.emplace(a.worker, static_cast<std::uint32_t>(worker_numbers.size())).first->second;
    }
    span.start = a.start;
    span.end = a.end;
    span.outcome = a.outcome;
    spans.push_back(span);
    work_time += a.work_time.value_or(0);
  }
  std::vector<std::size_t> longest_positions;
  RunSummary s = summarize_spans(spans, items.size(), worker_numbers.size(), longest, longest_positions);
  s.work_time = work_time;
  for (std::size_t position : longest_positions) s.longest.push_back(attempts[position]);
  add_waits(items, spans, s);
  return s;
}

}  // namespace millrace::data
