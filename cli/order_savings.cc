#include "cli/order_savings.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <ostream>

#include "data/error.h"
#include "data/readable_duration.h"

namespace millrace::cli {

namespace {

constexpr const char* kRecorded = "recorded";

const sim::ComparisonRow& recorded_row(const sim::Comparison& comparison, int workers, scheduler::QueueOrder order) {
  const std::string name = scheduler::to_string(order);
  for (const sim::ComparisonRow& row : comparison.rows) {
    if (row.partitioner == kRecorded && row.workers == workers && row.order == name) return row;
  }
  throw data::Error("compare", "no recorded row for " + std::to_string(workers) + " workers in " + name + " order");
}

double held_to_the_end(int workers, data::Micros makespan) {
  return workers * static_cast<double>(makespan) / static_cast<double>(data::kMicrosPerHour);
}

}  // namespace

sim::Comparison with_order_rows(const sim::ComparisonSpec& spec, sim::Comparison comparison) {
  sim::ComparisonSpec recorded_only = spec;
  recorded_only.partitioners.clear();
  recorded_only.listed.clear();
  recorded_only.orders.clear();
  for (scheduler::QueueOrder order : {scheduler::QueueOrder::kTipFirst, scheduler::QueueOrder::kLongestFirst}) {
    if (std::find(spec.orders.begin(), spec.orders.end(), order) == spec.orders.end()) {
      recorded_only.orders.push_back(order);
    }
  }
  if (recorded_only.orders.empty()) return comparison;
  const sim::Comparison added = sim::run_comparison(recorded_only);
  const auto recorded_end = std::find_if(comparison.rows.begin(), comparison.rows.end(),
                                         [](const sim::ComparisonRow& row) { return row.partitioner != kRecorded; });
  std::vector<sim::ComparisonRow> rows(comparison.rows.begin(), recorded_end);
  rows.insert(rows.end(), added.rows.begin(), added.rows.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const sim::ComparisonRow& a, const sim::ComparisonRow& b) { return a.workers < b.workers; });
  rows.insert(rows.end(), recorded_end, comparison.rows.end());
  comparison.rows = std::move(rows);
  return comparison;
}

// The worker-hours `hours` at `per_hour`, unrounded per worker.
data::Money hours_at(double hours, data::Money per_hour) {
  data::HourlyTally tally(per_hour);
  tally.add(static_cast<data::Micros>(std::llround(hours * static_cast<double>(data::kMicrosPerHour))));
  return tally.total("the cost of the scaled-down workers");
}

std::vector<OrderSaving> order_savings(const sim::Comparison& comparison, const sim::Pricing& pricing) {
  std::vector<int> workers;
  for (const sim::ComparisonRow& row : comparison.rows) {
    if (row.partitioner == kRecorded && std::find(workers.begin(), workers.end(), row.workers) == workers.end()) {
      workers.push_back(row.workers);
    }
  }
  std::vector<OrderSaving> savings;
  for (int w : workers) {
    const sim::ComparisonRow& tip = recorded_row(comparison, w, scheduler::QueueOrder::kTipFirst);
    const sim::ComparisonRow& lpt = recorded_row(comparison, w, scheduler::QueueOrder::kLongestFirst);
    const double baseline_hours = held_to_the_end(w, tip.makespan_mean);
    auto add = [&](const char* strategy, const sim::ComparisonRow& row, bool scale_down) {
      OrderSaving& s = savings.emplace_back();
      s.workers = w;
      s.strategy = strategy;
      s.makespan = row.makespan_mean;
      s.saved = tip.makespan_mean - row.makespan_mean;
      s.saved_share = tip.makespan_mean > 0 ? static_cast<double>(s.saved) / static_cast<double>(tip.makespan_mean) : 0;
      s.node_hours = scale_down ? row.node_hours : held_to_the_end(w, row.makespan_mean);
      s.node_hours_saved = baseline_hours - s.node_hours;
      s.node_hours_share = baseline_hours > 0 ? s.node_hours_saved / baseline_hours : 0;
      if (pricing.worker_price && row.cost) {
        s.cost = scale_down ? hours_at(s.node_hours, *pricing.worker_price) : row.cost->mean;
        s.currency = row.cost->currency;
      }
    };
    add("tip-first (today's)", tip, false);
    add("lpt", lpt, false);
    add("tip-first + scale-down", tip, true);
    add("lpt + scale-down", lpt, true);
  }
  return savings;
}

void print_savings(const std::vector<OrderSaving>& savings, const std::string& run,
                   const data::RunSummary& recorded, std::ostream& out) {
  data::Micros largest = recorded.makespan;
  for (const OrderSaving& s : savings) largest = std::max(largest, s.makespan);
  const data::DisplayUnit unit = data::display_unit(largest);
  char line[200];
  out << "\nwhat each queue order would have saved on run " << run
      << " (as recorded: " << data::readable_duration(recorded.makespan) << " on "
      << data::counted(static_cast<std::int64_t>(recorded.workers), "worker") << ", "
      << data::node_time(held_to_the_end(static_cast<int>(recorded.workers), recorded.makespan))
      << " with every worker held to the end)\n"
      << "saved: against tip-first replayed with the recorded durations on as many workers, every worker held "
         "to the end\nlpt = longest predicted first (cost model); scale-down = idle workers leave once the queue is "
         "drained; times in "
      << unit.name;
  const bool priced = !savings.empty() && savings.front().cost;
  if (priced) {
    out << "; cost = mean over replicas: held to the end, as compare's cost column bills it; scale-down, the "
           "worker-hours at the price, not rounded per worker";
  }
  out << "\n";
  std::snprintf(line, sizeof line, "%7s %-24s %9s %16s %10s %17s%s\n", "workers", "strategy", "makespan", "saved",
                "node-h", "node-h saved", priced ? "  cost" : "");
  out << line;
  for (const OrderSaving& s : savings) {
    std::snprintf(line, sizeof line, "%7d %-24s %9.3f %9.3f %5.1f%% %10s %10s %5.1f%%\n", s.workers,
                  s.strategy.c_str(), unit.of(s.makespan), unit.of(s.saved), 100 * s.saved_share,
                  data::readable_number(s.node_hours).c_str(), data::readable_number(s.node_hours_saved).c_str(),
                  100 * s.node_hours_share);
    out << std::string(line, std::strlen(line) - 1) << (s.cost ? "  " + data::money_text(*s.cost, s.currency) : "")
        << "\n";
  }
}

nlohmann::json to_json(const std::vector<OrderSaving>& savings) {
  nlohmann::json out = nlohmann::json::array();
  for (const OrderSaving& s : savings) {
    out.push_back({{"workers", s.workers},
                   {"strategy", s.strategy},
                   {"makespan_us", s.makespan},
                   {"saved_us", s.saved},
                   {"saved_share", s.saved_share},
                   {"node_hours", s.node_hours},
                   {"node_hours_saved", s.node_hours_saved},
                   {"node_hours_share", s.node_hours_share}});
    if (s.cost) out.back()["cost"] = {{"mean", data::exact_money(*s.cost)}, {"currency", s.currency}};
  }
  return out;
}

}  // namespace millrace::cli
