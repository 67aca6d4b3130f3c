// `run --plan COMPARISON[:ROW]`: what a stored `plan` or `compare` chose, as a run carries it
// out: the partitioner over the comparison's span with the partition settings it simulated (or
// the ranges file it scored), the worker count, queue order and concurrency policy, the cost
// model file; and what the comparison predicted of that row's makespan, kept with the run so it
// can be set against what happens. Without ROW, a plan's answer; a compare has no single answer,
// so its row must be named. Rows are numbered from 1 in the order the comparison printed them.
// The partition settings are written into a comparison's parameters by partition_settings, the
// one place that part of the format is written and read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/digested_model.h"
#include "data/records.h"
#include "data/trace_store.h"
#include "partitioners/partitioner.h"
#include "scheduler/concurrency_policy.h"
#include "sim/comparison.h"

namespace millrace::cli {

struct ChosenPlan {
  std::int64_t comparison = 0;
  std::int64_t row = 0;         // from 1
  std::string kind;             // "plan" or "compare"
  std::string model_path;
  std::optional<data::CostModel> model;  // read from model_path when its SHA-256 was checked
  // Why the model at model_path cannot be checked against the comparison's ("": it was checked).
  std::string model_unchecked;
  std::string partitioner;      // a generator's name; empty for a ranges file
  std::string ranges_file;      // the file a listed candidate was read from
  partitioners::PartitionParams partition;  // span, workers and settings; no model
  int workers = 0;
  std::string order;
  std::string policy;
  scheduler::AutoscaleSettings autoscale;
  sim::ComparisonRow predicted;  // the stored row: its ranges and makespan mean, p10, p50, p90

  // "comparison 3 row 2 (the plan's answer): optimal, 144 ranges on 12 workers, tip-first order, fixed-pool"
  std::string text() const;
  // What the run keeps of it in its parameters ("plan"): the link and the makespan predicted.
  nlohmann::json to_json() const;
};

// The effective partition settings a comparison simulated, as its parameters keep them.
nlohmann::json partition_settings(const partitioners::PartitionParams& params);

// `reference` is "ID" or "ID:ROW". Throws data::Error naming the reference for a malformed one,
// a missing comparison or row, a compare without a row, a plan without an answer, a row that
// replays a recorded run, a model fitted on the fly (no file to run with), a model file that is
// no longer the one the comparison was made with (its SHA-256 differs) and a comparison stored
// before its partition settings were kept.
ChosenPlan chosen_plan(const data::TraceStore& store, const std::string& reference);

}  // namespace millrace::cli
