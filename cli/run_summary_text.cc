#include "cli/run_summary_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

#include "cli/prediction_text.h"
#include "data/failure_summary.h"
#include "data/quantity.h"
#include "data/readable_duration.h"
#include "data/queue_waits.h"

namespace millrace::cli {

namespace {

std::string range_of(const data::Attempt& a, const std::vector<data::WorkItem>& items) {
  for (const auto& item : items) {
    if (item.id == a.item_id) return item.range ? item.range->text() : item.id;
  }
  return a.item_id;
}

// Per resource: how many items request it, and the smallest, median and largest request.
void print_requests(const std::vector<data::WorkItem>& items, std::ostream& out) {
  std::map<std::string, std::vector<std::int64_t>> by_resource;
  for (const auto& item : items) {
    for (const auto& [resource, milli] : item.requests) by_resource[resource].push_back(milli);
  }
  for (auto& [resource, amounts] : by_resource) {
    std::sort(amounts.begin(), amounts.end());
    out << "  request " << resource << ": " << amounts.size() << " items, min "
        << data::readable_quantity(resource, amounts.front()) << " / median "
        << data::readable_quantity(resource, amounts[(amounts.size() - 1) / 2]) << " / max "
        << data::readable_quantity(resource, amounts.back()) << "\n";
  }
}

// "p50 850 ms, p90 2.1 s, max 4.0 s" of durations (sorted here).
std::string spread_text(std::vector<data::Micros> durations) {
  std::sort(durations.begin(), durations.end());
  return "p50 " + data::readable_duration(data::nearest_rank(durations, 0.5)) + ", p90 " +
         data::readable_duration(data::nearest_rank(durations, 0.9)) + ", max " +
         data::readable_duration(durations.back());
}

// The phases of the attempts that recorded them (data::Attempt: submitted, placed, start): how
// long each waited to be placed (pod scheduled, local slot granted) and then to start working.
void print_phases(const std::vector<data::Attempt>& attempts, std::ostream& out) {
  std::vector<data::Micros> to_placed, to_started;
  for (const data::Attempt& a : attempts) {
    if (!a.placed) continue;
    to_started.push_back(std::max<data::Micros>(0, a.start - *a.placed));
    if (a.submitted) to_placed.push_back(std::max<data::Micros>(0, *a.placed - *a.submitted));
  }
  if (to_started.empty()) return;
  out << "  phases:         ";
  if (!to_placed.empty()) out << "submitted -> placed " << spread_text(to_placed) << "; ";
  out << "placed -> started " << spread_text(to_started) << " (" << to_started.size() << " of " << attempts.size()
      << " attempts recorded them)\n";
}

// The failed and cancelled attempts by kind, the most frequent few, and the last one:
// "  failures:       40 attempts: exit 3 x 38, timeout x 2; last: 99/100 attempt 3, exit 3".
void print_failures(const std::vector<data::WorkItem>& items, const std::vector<data::Attempt>& attempts,
                    std::ostream& out) {
  constexpr std::size_t kShownKinds = 3;
  const data::FailureSummary failures = data::summarize_failures(attempts);
  if (failures.attempts == 0) return;
  out << "  failures:       " << failures.attempts << (failures.attempts == 1 ? " attempt: " : " attempts: ");
  std::size_t other_attempts = 0;
  for (std::size_t k = 0; k < failures.kinds.size(); ++k) {
    if (k >= kShownKinds) {
      other_attempts += failures.kinds[k].attempts;
      continue;
    }
    out << (k == 0 ? "" : ", ") << failures.kinds[k].label << " x " << failures.kinds[k].attempts;
  }
  if (other_attempts > 0) {
    const std::size_t others = failures.kinds.size() - kShownKinds;
    out << ", " << others << (others == 1 ? " other kind x " : " other kinds x ") << other_attempts;
  }
  const data::Attempt& last = *failures.last;
  out << "; last: " << range_of(last, items) << " attempt " << last.number << ", " << data::failure_label(last) << "\n";
}

}  // namespace

void print_run_summary(const data::Run& run, const std::vector<data::WorkItem>& items,
                       const std::vector<data::Attempt>& attempts, const data::RunSummary& s, std::ostream& out) {
  out << "run " << run.id << " '" << run.name << "' (" << to_string(run.source) << ", in " << run.units << ")\n";
  const auto count = [](std::size_t n) { return data::grouped(static_cast<std::int64_t>(n)); };
  out << "  items:          " << count(s.items) << " (" << count(s.items_without_success)
      << " without a successful attempt)\n";
  out << "  attempts:       " << count(s.attempts) << " (" << count(s.failed_attempts) << " failed or cancelled)\n";
  print_failures(items, attempts, out);
  out << "  total work:     " << data::readable_duration(s.total_work) << " (worker time)";
  if (s.work_time > 0) {
    out << ", " << data::readable_duration(s.work_time) << " of it per-unit work ("
        << static_cast<int>(100.0 * static_cast<double>(s.work_time) / static_cast<double>(s.total_work) + 0.5) << "%)";
  }
  out << "\n  makespan:       " << data::readable_duration(s.makespan) << " (first start to last end)\n";
  if (!s.longest.empty()) {
    const auto& top = s.longest.front();
    out << "  longest:        " << range_of(top, items) << ", " << data::readable_duration(top.duration());
    if (!top.worker.empty()) out << " on worker " << top.worker;
    out << "\n";
  }
  if (s.has_submit_times) {
    out << "  queue wait:     " << data::waits_text(s.waits) << " (" << s.waits.items << " items started";
    if (s.never_started > 0) out << ", " << s.never_started << " never started";
    out << ")\n";
  }
  print_requests(items, out);
  if (s.workers == 0) {
    out << "  workers:        not recorded\n";
    return;
  }
  out << "  workers:        " << s.workers << ", busy min " << data::readable_duration(s.busy_min) << " / median "
      << data::readable_duration(s.busy_median) << " / max " << data::readable_duration(s.busy_max);
  // Workers named by node (a pod trace) run several attempts at once: their busy time sums them.
  if (s.busy_max > s.makespan) out << " (summed over the attempts a worker ran at once)";
  out << "\n";
  for (const data::TailRow& tail : data::tail_rows(s.tail)) {
    char row[160];
    std::snprintf(row, sizeof row, "  %-28s %s\n", tail.label, tail.value.c_str());
    out << row;
  }
  out << "  top durations:";
  const char* separator = " ";
  for (const auto& a : s.longest) {
    out << separator << range_of(a, items) << " (" << data::readable_duration(a.duration()) << ")";
    separator = ", ";
  }
  out << "\n";
}

StoredRun read_stored_run(const data::TraceStore& store, std::int64_t run_id) {
  StoredRun stored{store.run(run_id), store.items(run_id), store.attempts(run_id), {}};
  stored.summary = data::summarize(stored.items, stored.attempts);
  return stored;
}

void print_stored_run(const StoredRun& s, std::ostream& out) {
  print_run_summary(s.run, s.items, s.attempts, s.summary, out);
  print_phases(s.attempts, out);
  print_prediction_check(s.run, s.items, s.attempts, s.summary.makespan, out);
}

void print_stored_run(const data::TraceStore& store, std::int64_t run_id, std::ostream& out) {
  print_stored_run(read_stored_run(store, run_id), out);
}

}  // namespace millrace::cli
