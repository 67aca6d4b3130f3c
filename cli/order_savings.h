// What each queue order would have saved on a recorded run, for `millrace compare --run`: the
// recorded plan replayed with its recorded durations on each compared worker count, in tip-first
// order (today's), longest-predicted-first (lpt, predictions from the fitted cost model), and
// either of them with the workers scaled down as the queue drains.
//
// The baseline is the tip-first replay on as many workers with every worker held until the last
// range ends (node-hours = workers x makespan), not the recorded makespan itself: all strategies
// then come from the same simulator, so a saving is the order's or the scale-down's alone and not
// the replay's distance from the recording (which is printed beside it as a check). Scale-down
// is what the simulator's pools do (scheduler/worker_pool_policy.h: idle workers retire once
// nothing is queued), so its node-hours are the simulated slot time.
//
// Priced (--worker-price, workers without node pools), each strategy also says what it costs:
// with every worker held to the end, the mean over replicas of what compare's cost column bills
// (each worker the run's makespan, rounded by --worker-billing); with scale-down, its worker-hours
// at the price, summed unrounded (the simulator keeps the slot time held, not each worker's life,
// so no per-worker minimum or rounding is applied to them).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/money.h"
#include "data/run_summary.h"
#include "sim/comparison.h"
#include "sim/replay.h"
#include "sim/run_cost.h"

namespace millrace::cli {

struct OrderSaving {
  int workers = 0;
  std::string strategy;       // "tip-first (today's)", "lpt", "tip-first + scale-down", "lpt + scale-down"
  data::Micros makespan = 0;  // mean over replicas
  data::Micros saved = 0;     // baseline makespan - makespan
  double saved_share = 0;     // saved / baseline makespan
  double node_hours = 0;
  double node_hours_saved = 0;
  double node_hours_share = 0;  // node_hours_saved / baseline node-hours
  std::optional<data::Money> cost;  // when priced
  std::string currency;
};

// `comparison` (run on `spec`, which has a recorded run) with the recorded plan's tip-first and
// lpt rows added where the spec's orders lacked them, next to its other recorded rows of the
// same worker count. The added rows are simulated with the spec's seed, so they equal the rows
// the spec would have given had it listed those orders.
sim::Comparison with_order_rows(const sim::ComparisonSpec& spec, sim::Comparison comparison);

// Four strategies per worker count of the recorded rows (which must include tip-first and lpt),
// priced when `pricing` prices workers and the rows were priced.
std::vector<OrderSaving> order_savings(const sim::Comparison& comparison, const sim::Pricing& pricing);

void print_savings(const std::vector<OrderSaving>& savings, const std::string& run,
                   const data::RunSummary& recorded, std::ostream& out);
nlohmann::json to_json(const std::vector<OrderSaving>& savings);

}  // namespace millrace::cli
