// What one simulation of a comparison (sim/comparison.h) contributes to its row: the replica's
// makespan, utilisation, cost, waits and failures. A sweep fanned out over a worker pool
// (sim/sweep_shards.h) carries these back from the workers in a lease completion's body, so they
// have a JSON form read back exactly (integers as integers, doubles as the shortest text that
// parses back to the same double) and checked field by field: a worker's body is input like any.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/queue_waits.h"
#include "data/time.h"
#include "sim/run_cost.h"

namespace millrace::sim {

struct ReplicaResult {
  data::Micros makespan = 0;
  double utilisation = 0;
  double node_hours = 0;
  std::optional<RunCost> cost;  // a row reads its total and currency (its pools stay with the worker)
  data::Micros tail_below_tenth = 0;
  std::size_t failed_attempts = 0;
  bool failed = false;
  data::WaitSummary waits;
  std::size_t nodes_interrupted = 0;
  std::size_t attempts_interrupted = 0;
};

// [{"makespan_us", "utilisation", "node_hours", "tail_below_tenth_us", "failed_attempts", "failed",
//   "waits": {"items", "p50_us", "p90_us", "p99_us", "max_us", "mean_pending"},
//   "nodes_interrupted", "attempts_interrupted" [, "cost": {"total_millionths", "currency"}]}, ...]
nlohmann::json to_json(const std::vector<ReplicaResult>& results);

// Reads what to_json wrote: exactly `expected` results. Throws data::Error naming `input` and the
// field (results[3].waits.p90_us) for anything else: a missing or extra field, a wrong type, a
// negative count or time, a number that is not finite.
std::vector<ReplicaResult> replica_results_from_json(const nlohmann::json& results, std::size_t expected,
                                                     const std::string& input);

}  // namespace millrace::sim
