#include "data/importers/importers.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "data/error.h"
#include "data/importers/csv_importer.h"
#include "data/importers/ethereum_importer.h"
#include "data/importers/json_importer.h"
#include "data/importers/profile_importer.h"
#include "data/importers/staged_import.h"
#include "data/importers/stellar_csv_importer.h"
#include "data/importers/stellar_log_importer.h"
#include "data/importers/stellar_metrics_importer.h"
#include "data/importers/stellar_status_importer.h"
#include "data/importers/swf_importer.h"

namespace millrace::data::importers {

namespace {

using TraceReader = Run (*)(const std::string&, TraceSink&);

const std::map<std::string, TraceReader>& trace_readers() {
  static const std::map<std::string, TraceReader> readers = {
      {"csv", read_timing_csv},          {"json", read_timing_json},
      {"swf", read_swf},                 {"stellar-log", read_stellar_log},
      {"stellar-csv", read_stellar_csv}, {"stellar-metrics", read_stellar_metrics},
      {"stellar-status", read_stellar_status}};
  return readers;
}

// "NASA-iPSC-1993-3.1-cln.swf.gz" -> "NASA-iPSC-1993-3.1-cln"
std::string stem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* suffix : {".gz", ".csv", ".json", ".swf", ".log"}) {
    std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.erase(name.size() - s.size());
    }
  }
  return name;
}

TraceReader trace_reader(const std::string& format) {
  check_import_format(format);
  return trace_readers().at(format);
}

// The formats that import as a per-unit cost profile rather than as a run.
bool is_profile_format(const std::string& format) { return format == "ethereum" || format == "profile"; }

CostProfile read_profile(const std::string& format, const std::string& path, const ImportOptions& options) {
  if (format == "profile") {
    CostProfile profile = read_cost_profile(path);
    profile.name = options.name.empty() ? stem(path) : options.name;
    return profile;
  }
  CostProfile profile = read_ethereum_profile(path, ethereum_series_from_string(options.series));
  if (!options.name.empty()) profile.name = options.name;
  return profile;
}

// Runs `read` with an exhausted memory reported against the input rather than as a bare
// std::bad_alloc.
template <typename Read>
auto naming_the_input(const std::string& path, Read read) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
    throw Error(path, "out of memory while importing");
  }
}

}  // namespace

const std::vector<std::string>& import_formats() {
  static const std::vector<std::string> formats = {"csv", "json", "swf", "ethereum", "stellar-log", "stellar-csv",
                                                     "stellar-metrics", "stellar-status", "profile"};
  return formats;
}

void check_import_format(const std::string& format) {
  const auto& formats = import_formats();
  if (std::find(formats.begin(), formats.end(), format) != formats.end()) return;
  std::string known;
  for (const auto& f : formats) known += (known.empty() ? "" : ", ") + f;
  throw Error("--format " + format, "unknown import format (known: " + known + ")");
}

ParsedInput parse_input(const std::string& format, const std::string& path, const ImportOptions& options) {
  return naming_the_input(path, [&] {
    ParsedInput parsed;
    if (is_profile_format(format)) {
      parsed.profile = read_profile(format, path, options);
      return parsed;
    }
    TraceBuilder builder;
    Run run = trace_reader(format)(path, builder);
    run.name = options.name.empty() ? stem(path) : options.name;
    parsed.trace = builder.finish(run);
    return parsed;
  });
}

ImportResult store_input(TraceStore& store, const ParsedInput& input) {
  ImportResult result;
  if (input.profile) {
    store.put_profile(*input.profile);
    result.name = input.profile->name;
    result.profile_bins = input.profile->bins.size();
  }
  if (input.trace) {
    result.run_id = store.add_run(input.trace->run, input.trace->items, input.trace->attempts);
    result.name = input.trace->run.name;
    result.items = input.trace->items.size();
    result.attempts = input.trace->attempts.size();
  }
  return result;
}

ImportResult import_file(TraceStore& store, const std::string& format, const std::string& path,
                         const ImportOptions& options) {
  if (is_profile_format(format)) return store_input(store, parse_input(format, path, options));
  return naming_the_input(path, [&] {
    const TraceReader read = trace_reader(format);
    StagedImport staged(store);
    Run run = read(path, staged);
    run.name = options.name.empty() ? stem(path) : options.name;
    ImportResult result;
    result.run_id = staged.publish(run);
    result.name = run.name;
    result.items = staged.items();
    result.attempts = staged.attempts();
    return result;
  });
}

}  // namespace millrace::data::importers
