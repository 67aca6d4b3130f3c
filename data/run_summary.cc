#include "data/run_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace millrace::data {

namespace {

// The value below which `fraction` of the sorted values lie (nearest rank).
Micros rank(const std::vector<Micros>& sorted, double fraction) {
  auto index = static_cast<std::size_t>(fraction * static_cast<double>(sorted.size()) + 0.999999);
  return sorted[std::clamp<std::size_t>(index, 1, sorted.size()) - 1];
}

}  // namespace

StragglerTail straggler_tail(std::vector<Micros> starts, std::vector<Micros> ends, Micros run_start,
                             Micros run_end, std::size_t workers) {
  StragglerTail tail;
  if (starts.empty() || run_end <= run_start) return tail;
  if (!std::is_sorted(starts.begin(), starts.end())) std::sort(starts.begin(), starts.end());
  if (!std::is_sorted(ends.begin(), ends.end())) std::sort(ends.begin(), ends.end());
  // Visits the changes of the number of busy workers in time order, ends before starts.
  auto for_each_step = [&](auto&& step) {
    std::size_t i = 0;
    std::size_t j = 0;
    while (j < ends.size()) {
      if (i < starts.size() && starts[i] < ends[j]) {
        step(starts[i++], +1);
      } else {
        step(ends[j++], -1);
      }
    }
  };
  int busy = 0;
  int peak = 0;
  for_each_step([&](Micros, int change) { peak = std::max(peak, busy += change); });
  int threshold = std::max(1, (peak + 9) / 10);
  Micros below_since = run_start;
  Micros alone_since = run_start;
  for_each_step([&](Micros at, int change) {
    int before = busy;
    busy += change;
    if (before >= threshold && busy < threshold) below_since = at;
    if (busy >= threshold) below_since = run_end;
    if (busy >= 2) alone_since = run_end;
    if (busy == 1 && before != 1) alone_since = at;
  });
  tail.below_tenth = run_end - below_since;
  tail.last_alone = run_end - alone_since;
  // Busy time after `from`: each attempt ending after it counts from max(start, from), and an
  // attempt starting after `from` also ends after it.
  Micros from = run_end - (run_end - run_start) / 10;
  auto ending_late = static_cast<Micros>(ends.end() - std::upper_bound(ends.begin(), ends.end(), from));
  auto first_late_start = std::upper_bound(starts.begin(), starts.end(), from);
  auto starting_late = static_cast<Micros>(starts.end() - first_late_start);
  Micros busy_late = 0;
  for (auto end = ends.end() - ending_late; end != ends.end(); ++end) busy_late += *end;
  for (auto start = first_late_start; start != starts.end(); ++start) busy_late -= *start;
  busy_late -= from * (ending_late - starting_late);
  Micros window = run_end - from;
  if (window > 0 && workers > 0) {
    tail.utilisation_last_tenth = static_cast<double>(busy_late) / (static_cast<double>(window) * workers);
  }
  return tail;
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

RunSummary summarize(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts, std::size_t longest) {
  RunSummary s;
  s.items = items.size();
  s.attempts = attempts.size();
  if (attempts.empty()) {
    s.items_without_success = items.size();
    return s;
  }
  Micros first_start = attempts.front().start, last_end = attempts.front().end;
  std::set<std::string> succeeded;
  std::map<std::string, Micros> busy;
  std::vector<Micros> starts, ends;
  for (const auto& a : attempts) {
    first_start = std::min(first_start, a.start);
    last_end = std::max(last_end, a.end);
    s.total_work += a.duration();
    s.work_time += a.work_time.value_or(0);
    if (a.outcome == Outcome::kFailed || a.outcome == Outcome::kCancelled) ++s.failed_attempts;
    if (a.outcome == Outcome::kSucceeded) succeeded.insert(a.item_id);
    if (a.worker.empty()) continue;
    busy[a.worker] += a.duration();
    if (a.end > a.start) {
      starts.push_back(a.start);
      ends.push_back(a.end);
    }
  }
  s.makespan = last_end - first_start;
  for (const auto& item : items) s.items_without_success += succeeded.count(item.id) ? 0 : 1;

  s.longest = attempts;
  std::stable_sort(s.longest.begin(), s.longest.end(),
                   [](const Attempt& a, const Attempt& b) { return a.duration() > b.duration(); });
  s.longest.resize(std::min(longest, s.longest.size()));

  std::map<std::string, Micros> first_start_of;
  for (const auto& a : attempts) {
    auto [at, added] = first_start_of.try_emplace(a.item_id, a.start);
    if (!added) at->second = std::min(at->second, a.start);
  }
  std::vector<QueuedItem> queued;
  Micros first_submit = first_start;
  for (const auto& item : items) {
    s.has_submit_times = s.has_submit_times || item.submit_at > 0;
    auto found = first_start_of.find(item.id);
    if (found == first_start_of.end()) {
      ++s.never_started;
      continue;
    }
    queued.push_back(QueuedItem{item.submit_at, found->second});
    first_submit = std::min(first_submit, item.submit_at);
  }
  if (s.has_submit_times) s.waits = summarize_waits(queued, first_submit, last_end);

  s.workers = busy.size();
  if (s.workers == 0) return s;
  std::vector<Micros> busy_times;
  for (const auto& [worker, time] : busy) busy_times.push_back(time);
  std::sort(busy_times.begin(), busy_times.end());
  s.busy_min = busy_times.front();
  s.busy_median = rank(busy_times, 0.5);
  s.busy_max = busy_times.back();
  s.tail = straggler_tail(std::move(starts), std::move(ends), first_start, last_end, s.workers);
  return s;
}

}  // namespace millrace::data
