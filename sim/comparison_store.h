// Comparisons kept in the trace store (tables comparisons and comparison_rows, data/schema.sql
// migration 2) so the notebooks can read what `millrace compare` and `millrace plan` found; with
// the experiment file a comparison was run from (migration 10), so it can be run again exactly,
// and what each row cost when priced (migration 14).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/records.h"
#include "data/trace_store.h"
#include "sim/comparison.h"

namespace millrace::sim {

// The experiment file a comparison was run from (cli/experiment_file.h): its text as read, byte
// for byte, its SHA-256, and the options given on the command line beside it.
struct ExperimentSource {
  std::string file;  // as named on the command line; empty: no experiment file
  std::string text;
  std::string sha256;
  std::vector<std::string> overrides;  // e.g. {"--replicas", "5"}
};

struct ComparisonHeader {
  std::string kind;        // "compare" or "plan"
  std::string model;       // the cost model file
  data::Range span;
  nlohmann::json parameters = nlohmann::json::object();
  ExperimentSource experiment;
};

// Writes the header, its experiment (when it has a file) and every row in one transaction;
// returns the comparison id.
std::int64_t record_comparison(data::TraceStore& store, const ComparisonHeader& header,
                               const Comparison& comparison);

struct StoredComparison {
  std::int64_t id = 0;
  std::string kind;
  data::Micros created = 0;
  std::int64_t rows = 0;
  std::string experiment_sha256;  // empty: run from the command line alone
  // What it compared, from its rows: the candidates (partitioners, ranges files) and queue orders
  // in the order of its rows, the worker counts ascending; and from its header the model file,
  // the recorded run ("" when none), a plan's deadline (0 when it had none) and its answer.
  std::vector<std::string> candidates;
  std::vector<std::string> orders;
  std::vector<int> workers;
  std::string model;
  std::string run;
  data::Micros deadline = 0;
  std::optional<int> answer_workers;
  // A node plan's: the pools it searched (one, or a mix's), the node counts of its rows (a mix's
  // nodes in all) ascending, and its answer's nodes per pool searched (empty: no answer).
  std::vector<std::string> pools;
  std::vector<int> node_counts;
  std::vector<int> answer_nodes;
};

// Every stored comparison, oldest first.
std::vector<StoredComparison> stored_comparisons(const data::TraceStore& store);

// The experiment comparison `id` was run from; none when it was run from the command line alone.
// Throws data::Error naming the store when there is no comparison `id`.
std::optional<ExperimentSource> stored_experiment(const data::TraceStore& store, std::int64_t id);

// Comparison `id`'s header as recorded (its experiment left out: stored_experiment has it).
// Throws data::Error naming the store when there is no comparison `id`.
ComparisonHeader stored_header(const data::TraceStore& store, std::int64_t id);

// Row `position` (from 0, in the order the comparison printed them) of comparison `id`: what
// was chosen (partitioner, workers, order, ranges), what was predicted of it (the makespan's
// mean and p10/p50/p90 over the replicas, a plan's share meeting its deadline) and what it cost
// when priced (migration 14: the cost band with its pools, as the live row had it; none in rows
// stored before). Throws data::Error naming the comparison and how many rows it has when there is
// no such row.
ComparisonRow stored_row(const data::TraceStore& store, std::int64_t id, std::int64_t position);

// Every row of comparison `id` so, in order. Throws data::Error naming the store when there is no
// comparison `id`.
std::vector<ComparisonRow> stored_rows(const data::TraceStore& store, std::int64_t id);

}  // namespace millrace::sim
