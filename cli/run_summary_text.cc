#include "cli/run_summary_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

#include "data/quantity.h"
#include "data/queue_waits.h"

namespace millrace::cli {

namespace {

std::string seconds(data::Micros us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f s", data::seconds_from_micros(us));
  return text;
}

std::string range_of(const data::Attempt& a, const std::vector<data::WorkItem>& items) {
  for (const auto& item : items) {
    if (item.id == a.item_id) return item.range ? item.range->end_count() : item.id;
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
        << data::format_quantity_milli(amounts.front()) << " / median "
        << data::format_quantity_milli(amounts[(amounts.size() - 1) / 2]) << " / max "
        << data::format_quantity_milli(amounts.back()) << "\n";
  }
}

}  // namespace

std::string hours_text(data::Micros us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f h", static_cast<double>(us) / data::kMicrosPerHour);
  return text;
}

void print_run_summary(const data::Run& run, const std::vector<data::WorkItem>& items, const data::RunSummary& s,
                       std::ostream& out) {
  out << "run " << run.id << " '" << run.name << "' (" << to_string(run.source) << ", units " << run.units << ")\n";
  out << "  items:          " << s.items << " (" << s.items_without_success << " without a successful attempt)\n";
  out << "  attempts:       " << s.attempts << " (" << s.failed_attempts << " failed or cancelled)\n";
  out << "  total work:     " << hours_text(s.total_work) << " (worker time)";
  if (s.work_time > 0) {
    out << ", " << hours_text(s.work_time) << " of it per-unit work ("
        << static_cast<int>(100.0 * static_cast<double>(s.work_time) / static_cast<double>(s.total_work) + 0.5) << "%)";
  }
  out << "\n  makespan:       " << hours_text(s.makespan) << "\n";
  if (!s.longest.empty()) {
    const auto& top = s.longest.front();
    out << "  longest:        " << range_of(top, items) << ", " << seconds(top.duration());
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
  out << "  workers:        " << s.workers << ", busy min " << hours_text(s.busy_min) << " / median "
      << hours_text(s.busy_median) << " / max " << hours_text(s.busy_max) << "\n";
  for (const data::TailRow& tail : data::tail_rows(s.tail)) {
    char row[160];
    std::snprintf(row, sizeof row, "  %-28s %s\n", tail.label, tail.value.c_str());
    out << row;
  }
  out << "  top durations:";
  const char* separator = " ";
  for (const auto& a : s.longest) {
    out << separator << range_of(a, items) << " (" << seconds(a.duration()) << ")";
    separator = ", ";
  }
  out << "\n";
}

}  // namespace millrace::cli
