#include "data/run_summary.h"

#include <algorithm>
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
  std::map<std::string, Micros> busy, done_at;
  for (const auto& a : attempts) {
    first_start = std::min(first_start, a.start);
    last_end = std::max(last_end, a.end);
    s.total_work += a.duration();
    s.work_time += a.work_time.value_or(0);
    if (a.outcome == Outcome::kFailed || a.outcome == Outcome::kCancelled) ++s.failed_attempts;
    if (a.outcome == Outcome::kSucceeded) succeeded.insert(a.item_id);
    if (!a.worker.empty()) {
      busy[a.worker] += a.duration();
      done_at[a.worker] = std::max(done_at[a.worker], a.end);
    }
  }
  s.makespan = last_end - first_start;
  for (const auto& item : items) s.items_without_success += succeeded.count(item.id) ? 0 : 1;

  s.longest = attempts;
  std::stable_sort(s.longest.begin(), s.longest.end(),
                   [](const Attempt& a, const Attempt& b) { return a.duration() > b.duration(); });
  s.longest.resize(std::min(longest, s.longest.size()));

  s.workers = busy.size();
  if (s.workers == 0) return s;
  std::vector<Micros> busy_times, finish_times;
  for (const auto& [worker, time] : busy) busy_times.push_back(time);
  for (const auto& [worker, time] : done_at) finish_times.push_back(time - first_start);
  std::sort(busy_times.begin(), busy_times.end());
  std::sort(finish_times.begin(), finish_times.end());
  s.busy_min = busy_times.front();
  s.busy_median = rank(busy_times, 0.5);
  s.busy_max = busy_times.back();
  s.half_idle_at = rank(finish_times, 0.5);
  s.most_idle_at = rank(finish_times, 0.9);
  for (const auto& a : attempts) {
    if (a.end - first_start > s.most_idle_at && a.start - first_start <= s.most_idle_at) ++s.running_when_most_idle;
  }
  return s;
}

}  // namespace millrace::data
