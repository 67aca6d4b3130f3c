// The bundle of a sweep fanned out over a worker pool (cli/sweep_fanout.h): what a worker needs
// to rebuild the base spec of the comparisons it simulates shards of (sim/sweep_shards.h). It is
// the options compare and plan share (cli/comparison_options.h's, as given: on the command line
// or in an experiment file) with the files they name carried inside (the cost model, ranges files,
// node pools), serialized once as JSON and named by its SHA-256, which every shard's payload
// carries. The worker writes the files into a directory of its own and parses the options through
// the very option definitions the coordinator used, so both build the same spec. With --run or
// --fit-runs, which read the trace store, a consistent copy of the store travels too.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/comparison_options.h"
#include "cli/digested_model.h"
#include "data/trace_store.h"
#include "sim/comparison.h"

namespace millrace::cli {

// The largest bundle a coordinator makes and a worker fetches.
inline constexpr std::size_t kMaxBundleBytes = 256u << 20;

struct SweepBundle {
  std::string text;    // the JSON
  std::string sha256;  // of `text`, hex
};

// Shared options a command set itself where they were not given (plan's node search: --policy
// job-per-item), by name: carried as if given.
using ImpliedOptions = std::vector<std::pair<std::string, std::string>>;

// The bundle of `command`'s shared comparison options (and those `implied` that it was not
// given), for base specs named `plan_name` (the scheduler's plan name of the comparisons: their
// messages). Throws data::Error naming an option the bundle cannot carry, or a file too large.
SweepBundle make_sweep_bundle(const CLI::App& command, const std::string& plan_name,
                              const ImpliedOptions& implied = {});

// A bundle rebuilt on a worker: the options, the model (none when the command took none: a node
// search replays a recorded run), and the base spec (which points to the model: keep this where
// it is).
struct BundledSpec {
  ComparisonOptions options;
  data::TraceStore store = data::TraceStore::in_memory();  // the bundle's copy when it carries one
  std::optional<DigestedModel> model;
  sim::ComparisonSpec base;
};

// Rebuilds `text` (a make_sweep_bundle JSON), its files written under `dir`. Throws data::Error
// naming the bundle and the field or option for anything it cannot use.
std::unique_ptr<BundledSpec> spec_from_bundle(const std::string& text, const std::filesystem::path& dir);

}  // namespace millrace::cli
