// The importers by format name, for the CLI and the main job. import_file streams a run's input
// into the store's staging tables in short batches and publishes it in one transaction
// (staged_import.h); a cost profile is parsed whole and stored in one transaction. Either way a
// malformed input leaves the store as it was, and another process using the store waits at
// most one batch. Every format reads its file through text_input.h (BOM, CRLF, UTF-8, bounded
// excerpts, file:line in every error) and checks numbers with fields.h.
//   csv, json      per-range timings (timing_records.h)
//   swf            Parallel Workloads Archive job logs (swf_importer.h)
//   ethereum       Etherscan daily series -> per-block cost profile (ethereum_importer.h)
//   stellar-log    raw stellar-supercluster catch-up log (stellar_log_importer.h)
//   stellar-csv    the same recording parsed to CSV (stellar_csv_importer.h)
//   stellar-metrics  the workers' Redis metrics set, one line each (stellar_metrics_importer.h)
//   stellar-status   a saved job monitor /status JSON (stellar_status_importer.h)
//   profile        any per-unit cost series, CSV or JSON rows (profile_importer.h)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/cost_profile.h"
#include "data/importers/trace.h"
#include "data/importers/trace_sink.h"
#include "data/trace_store.h"

namespace millrace::data::importers {

struct ImportOptions {
  std::string name;             // run or profile name; default: the file's stem (profile: per series)
  std::string series = "size";  // ethereum only: size | gas
  std::string nodes_file{};     // the run's node arrivals (node_arrivals_csv.h), "" when none
};

struct ImportResult {
  std::int64_t run_id = 0;  // 0 when a profile was imported
  std::string name;
  std::size_t items = 0;
  std::size_t attempts = 0;
  std::size_t profile_bins = 0;
  std::size_t node_arrivals = 0;
};

// A parsed input, not yet stored: a run, or a cost profile (ethereum, profile).
struct ParsedInput {
  std::optional<Trace> trace;
  std::optional<CostProfile> profile;
};

// How one format reads its input: as a run (streamed into a TraceSink) or as a cost profile.
// Exactly one of the two is set. The formats are registered by name in importers.cc
// (data/registry.h), one line each: a new format is a reader of its own and one line there.
struct ImportFormat {
  using TraceReader = Run (*)(const std::string& path, TraceSink& sink);
  using ProfileReader = CostProfile (*)(const std::string& path, const ImportOptions& options);
  TraceReader read_trace = nullptr;
  ProfileReader read_profile = nullptr;
};

std::vector<std::string> import_formats();
// "csv|json|..." (joined by `separator`), for help texts.
std::string import_format_list(const std::string& separator = ", ");
// Throws Error naming --format and `format`, listing the known formats, unless it is one.
const ImportFormat& find_import_format(const std::string& format);

// Parses the whole input (nothing is written); throws Error naming the input on an unknown
// format or a malformed file.
ParsedInput parse_input(const std::string& format, const std::string& path, const ImportOptions& options = {});
// Writes a parsed input in one transaction (for inputs already in memory; import_file streams).
ImportResult store_input(TraceStore& store, const ParsedInput& input);
// Reads `path` straight into the store (see above); throws Error naming the input.
ImportResult import_file(TraceStore& store, const std::string& format, const std::string& path,
                         const ImportOptions& options = {});

}  // namespace millrace::data::importers
