// The options `millrace compare` and `millrace plan` share: an experiment file holding any of
// them (-f, cli/experiment_file.h), the store, the cost model (a file, or fitted from recorded
// runs of the store), the span
// (--span, else a recorded run's span, else the model's), partitioners and ranges files (each a
// candidate of its own), queue orders, replicas with failure injection, and the partition
// parameters; turned into a sim::ComparisonSpec. Units outside the model's span are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/digested_model.h"
#include "cli/resource_options.h"
#include "data/cost_model.h"
#include "data/trace_store.h"
#include "sim/comparison.h"
#include "sim/comparison_store.h"

namespace millrace::cli {

// The --help groups of the options compare and plan share, beside help_layout.h's.
inline constexpr const char* kJobGroup = "The job (what is cut into ranges)";
inline constexpr const char* kCandidatesGroup = "The candidates (how it is cut and handed out)";

struct ComparisonOptions {
  std::string store;
  std::string model_path;
  std::string fit_runs;  // instead of model_path: fit the model from these runs of the store
  std::string span;
  std::string run;
  std::string partitioners = "uniform,logarithmic,cost-balanced,optimal";
  bool partitioners_given = false;  // without a model, only an explicit --partitioners is simulated (and refused)
  std::vector<std::string> ranges_files;  // FILE or NAME=FILE
  std::string policy = "fixed-pool";
  std::string orders = "plan";
  bool orders_given = false;  // --order given: else the preset's or the recorded run's order (queue_order_choice)
  std::string preset;         // a deployment's settings (partitioners/preset.h) where options are not given
  std::set<std::string> partition_options_given;  // of --range-count, --range-length, --overlap, --align, --floor
  int replicas = 0;  // 0: not given, sim::kBandReplicas when replicas differ, else 1 (comparison_spec)
  std::uint64_t seed = 1;
  std::string noise = "on";
  double fail_prob = 0;
  std::string startup_latency = "0";
  bool fail_prob_given = false;        // they replace the model file's fitted parts (cli/fitted_cluster.h)
  bool startup_latency_given = false;
  int max_attempts = 3;
  std::int64_t ranges = 0;
  std::int64_t range_length = 0;
  std::int64_t overlap = 0;
  std::int64_t align = 1;
  std::int64_t floor = 0;
  unsigned threads = 0;
  bool json = false;
  bool no_record = false;
  bool quiet = false;  // no progress line
  ResourceOptions resources;
  sim::ExperimentSource experiment;  // -f FILE (cli/experiment_file.h)
};

void add_comparison_options(CLI::App* cmd, ComparisonOptions& options);

// The trace store a comparison reads its runs from and is stored in: --store, which must exist;
// without it (nothing to read or store: --no-record, and no --run or --fit-runs) an empty one in
// memory. Throws data::Error naming what needs --store.
data::TraceStore comparison_store(const ComparisonOptions& options);

// The cost model: --model's file with the SHA-256 of the text it was read from, or fitted from
// --fit-runs as `millrace fit --runs` fits it (its defaults; no SHA-256). Throws data::Error when
// neither is given, or for an unreadable model or a bad run.
DigestedModel comparison_model(const ComparisonOptions& options, const data::TraceStore& store);

// The model as stored with a comparison: its file, or the runs it was fitted from.
std::string model_label(const ComparisonOptions& options);

// "32,64,128" -> {32, 64, 128}; throws data::Error naming `option` for anything but positive
// integers.
std::vector<int> parse_workers(const std::string& text, const std::string& option);

// The spec of everything but the worker counts: the span (--span; with --run the units the
// recorded ranges cover, less --overlap at the bottom so the partitions' work covers the same
// units; else the model's span, less --overlap at the bottom likewise: the units a preset cuts
// from the recording's tip), the recorded baseline (with --run: replayed as `simulate` replays
// it, sim/replay.h, its warnings on stderr), partitioners, ranges files, orders, replicas (not
// given: sim::kBandReplicas when they differ, else 1), cluster and partition parameters. `model` must outlive the spec; without one (a
// node search of `plan`) only the recorded run is simulated and there is no span. Throws
// data::Error for bad options, unreadable ranges files and units outside the model's span.
sim::ComparisonSpec comparison_spec(const ComparisonOptions& options, const data::TraceStore& store,
                                    const data::CostModel* model);

// The queue orders a comparison simulates and why: --order as given; else the order of --preset
// (stellar-pubnet: tip-first, what their script does); else, with --run, tip-first when the
// recorded run handed its ranges out tip first; else plan. `recorded`: the recorded run's plan.
struct QueueOrderChoice {
  std::string orders;  // comma-separated
  std::string why;
};
QueueOrderChoice queue_order_choice(const ComparisonOptions& options,
                                    const std::optional<std::vector<data::WorkItem>>& recorded);

// Throws data::Error naming the option responsible when the partitions, simulated clusters or
// replica results of a comparison of `spec` on these worker counts cannot fit in memory.
void require_memory_for(const sim::ComparisonSpec& spec, const std::vector<int>& workers);
// Throws data::Error naming --replicas when `rows` rows of `replicas` results each (`rows_text`
// says which rows) cannot fit in memory.
void require_memory_for_replicas(double rows, int replicas, const std::string& rows_text);

// The settings stored with a comparison, with the SHA-256 of the model it used (empty: none).
nlohmann::json parameters_of(const ComparisonOptions& options, const std::string& model_sha256);

// A --ranges candidate, "NAME=FILE" or "FILE" (named after the file's stem), as {name, file}.
std::pair<std::string, std::string> candidate_name_and_file(const std::string& text);

}  // namespace millrace::cli
