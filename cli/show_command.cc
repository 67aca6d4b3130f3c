// `millrace show RUN`: a recorded run in a few figures (data/run_summary.h); `millrace show
// PROFILE`, when no run has that name: a cost profile's span, total work and densest stretch
// (data/profile_summary.h).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "data/model_span.h"
#include "data/profile_summary.h"
#include "data/quantity.h"
#include "data/queue_waits.h"
#include "data/run_summary.h"
#include "data/trace_store.h"

namespace millrace::cli {

namespace {

std::string hours(data::Micros us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f h", static_cast<double>(us) / data::kMicrosPerHour);
  return text;
}

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
void print_requests(const std::vector<data::WorkItem>& items) {
  std::map<std::string, std::vector<std::int64_t>> by_resource;
  for (const auto& item : items) {
    for (const auto& [resource, milli] : item.requests) by_resource[resource].push_back(milli);
  }
  for (auto& [resource, amounts] : by_resource) {
    std::sort(amounts.begin(), amounts.end());
    std::cout << "  request " << resource << ": " << amounts.size() << " items, min "
              << data::format_quantity_milli(amounts.front()) << " / median "
              << data::format_quantity_milli(amounts[(amounts.size() - 1) / 2]) << " / max "
              << data::format_quantity_milli(amounts.back()) << "\n";
  }
}

void print(const data::Run& run, const std::vector<data::WorkItem>& items, const data::RunSummary& s) {
  std::cout << "run " << run.id << " '" << run.name << "' (" << to_string(run.source) << ", units " << run.units
            << ")\n";
  std::cout << "  items:          " << s.items << " (" << s.items_without_success << " without a successful attempt)\n";
  std::cout << "  attempts:       " << s.attempts << " (" << s.failed_attempts << " failed or cancelled)\n";
  std::cout << "  total work:     " << hours(s.total_work) << " (worker time)";
  if (s.work_time > 0) {
    std::cout << ", " << hours(s.work_time) << " of it per-unit work ("
              << static_cast<int>(100.0 * static_cast<double>(s.work_time) / static_cast<double>(s.total_work) + 0.5)
              << "%)";
  }
  std::cout << "\n  makespan:       " << hours(s.makespan) << "\n";
  if (!s.longest.empty()) {
    const auto& top = s.longest.front();
    std::cout << "  longest:        " << range_of(top, items) << ", " << seconds(top.duration());
    if (!top.worker.empty()) std::cout << " on worker " << top.worker;
    std::cout << "\n";
  }
  if (s.has_submit_times) {
    std::cout << "  queue wait:     " << data::waits_text(s.waits) << " (" << s.waits.items << " items started";
    if (s.never_started > 0) std::cout << ", " << s.never_started << " never started";
    std::cout << ")\n";
  }
  print_requests(items);
  if (s.workers == 0) {
    std::cout << "  workers:        not recorded\n";
    return;
  }
  std::cout << "  workers:        " << s.workers << ", busy min " << hours(s.busy_min) << " / median "
            << hours(s.busy_median) << " / max " << hours(s.busy_max) << "\n";
  for (const data::TailRow& tail : data::tail_rows(s.tail)) {
    char row[160];
    std::snprintf(row, sizeof row, "  %-28s %s\n", tail.label, tail.value.c_str());
    std::cout << row;
  }
  std::cout << "  top durations:";
  const char* separator = " ";
  for (const auto& a : s.longest) {
    std::cout << separator << range_of(a, items) << " (" << seconds(a.duration()) << ")";
    separator = ", ";
  }
  std::cout << "\n";
}

void print_profile(const data::CostProfile& profile) {
  const data::ProfileSummary s = data::summarise_profile(profile);
  const double mean = s.total_work / static_cast<double>(s.span.count);
  char line[256];
  std::cout << "profile '" << profile.name << "' (units " << profile.units << ", from " << profile.source << ")\n";
  std::snprintf(line, sizeof line, "  span:            %s (%lld %s, %zu bins)\n", data::span_text(s.span).c_str(),
                static_cast<long long>(s.span.count), profile.units.c_str(), s.bins);
  std::cout << line;
  std::snprintf(line, sizeof line, "  total work:      %s (mean %.3f us per unit)\n",
                hours(static_cast<data::Micros>(s.total_work)).c_str(), mean);
  std::cout << line;
  std::snprintf(line, sizeof line, "  densest stretch: %s (%lld %s) holds %s, %.1f%% of the work (%.1fx the mean)\n",
                data::span_text(s.densest).c_str(), static_cast<long long>(s.densest.count), profile.units.c_str(),
                hours(static_cast<data::Micros>(s.densest_work)).c_str(), 100 * s.densest_work / s.total_work,
                s.densest_work / (mean * static_cast<double>(s.densest.count)));
  std::cout << line;
}

bool has_run(const data::TraceStore& store, const std::string& ref) {
  const std::vector<data::Run> runs = store.runs();
  return std::any_of(runs.begin(), runs.end(),
                     [&](const data::Run& r) { return r.name == ref || std::to_string(r.id) == ref; });
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto store_path = std::make_shared<std::string>();
  auto run_ref = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "show", "Summarize a run (items, work, longest ranges, failures, workers, stragglers) or a cost profile");
  cmd->add_option("--store", *store_path, "Trace store file")->required();
  cmd->add_option("run", *run_ref, "Run id or name, or a cost profile's name")->required();
  cmd->callback([store_path, run_ref] {
    auto store = data::TraceStore::open_for_reading(*store_path);
    const std::vector<std::string> profiles = store.profile_names();
    if (!has_run(store, *run_ref) && std::find(profiles.begin(), profiles.end(), *run_ref) != profiles.end()) {
      print_profile(store.profile(*run_ref));
      return;
    }
    auto id = store.find_run(*run_ref);
    auto items = store.items(id);
    print(store.run(id), items, data::summarize(items, store.attempts(id)));
  });
}

}  // namespace millrace::cli
