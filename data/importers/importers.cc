#include "data/importers/importers.h"

#include <filesystem>

#include "data/error.h"
#include "data/registry.h"
#include "data/importers/csv_importer.h"
#include "data/importers/ethereum_importer.h"
#include "data/importers/json_importer.h"
#include "data/importers/node_arrivals_csv.h"
#include "data/importers/profile_importer.h"
#include "data/importers/staged_import.h"
#include "data/importers/stellar_csv_importer.h"
#include "data/importers/stellar_log_importer.h"
#include "data/importers/stellar_metrics_importer.h"
#include "data/importers/stellar_status_importer.h"
#include "data/importers/swf_importer.h"

namespace millrace::data::importers {

namespace {

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

CostProfile read_profile_series(const std::string& path, const ImportOptions& options) {
  CostProfile profile = read_cost_profile(path);
  profile.name = options.name.empty() ? stem(path) : options.name;
  return profile;
}

CostProfile read_ethereum(const std::string& path, const ImportOptions& options) {
  CostProfile profile = read_ethereum_profile(path, ethereum_series_from_string(options.series));
  if (!options.name.empty()) profile.name = options.name;
  return profile;
}

ImportFormat run_format(ImportFormat::TraceReader read) { return {read, nullptr}; }
ImportFormat profile_format(ImportFormat::ProfileReader read) { return {nullptr, read}; }

// Every format, in the order help texts list them.
const Registry<ImportFormat>& registry() {
  static const Registry<ImportFormat> formats = Registry<ImportFormat>("import format")
                                                     .add("csv", run_format(read_timing_csv))
                                                     .add("json", run_format(read_timing_json))
                                                     .add("swf", run_format(read_swf))
                                                     .add("ethereum", profile_format(read_ethereum))
                                                     .add("stellar-log", run_format(read_stellar_log))
                                                     .add("stellar-csv", run_format(read_stellar_csv))
                                                     .add("stellar-metrics", run_format(read_stellar_metrics))
                                                     .add("stellar-status", run_format(read_stellar_status))
                                                     .add("profile", profile_format(read_profile_series));
  return formats;
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

std::vector<std::string> import_formats() { return registry().names(); }

std::string import_format_list(const std::string& separator) { return registry().known(separator); }

const ImportFormat& find_import_format(const std::string& format) { return registry().find(format, "--format"); }

ParsedInput parse_input(const std::string& format, const std::string& path, const ImportOptions& options) {
  return naming_the_input(path, [&] {
    const ImportFormat& reader = find_import_format(format);
    ParsedInput parsed;
    if (reader.read_profile != nullptr) {
      parsed.profile = reader.read_profile(path, options);
      return parsed;
    }
    TraceBuilder builder;
    Run run = reader.read_trace(path, builder);
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
  const ImportFormat& reader = find_import_format(format);
  if (reader.read_profile != nullptr) {
    if (!options.nodes_file.empty()) throw Error("--nodes " + options.nodes_file, "a cost profile has no nodes");
    return store_input(store, parse_input(format, path, options));
  }
  const std::string name = options.name.empty() ? stem(path) : options.name;
  store.check_new_run_name(name);  // before the file is read and anything is staged
  // Read whole first (a small file): a malformed one stages nothing.
  const std::vector<NodeArrival> nodes =
      options.nodes_file.empty() ? std::vector<NodeArrival>{} : read_node_arrivals_csv(options.nodes_file);
  return naming_the_input(path, [&] {
    StagedImport staged(store);
    Run run = reader.read_trace(path, staged);
    run.name = name;
    staged.add_node_arrivals(nodes);
    ImportResult result;
    result.node_arrivals = nodes.size();
    result.run_id = staged.publish(run);
    result.name = run.name;
    result.items = staged.items();
    result.attempts = staged.attempts();
    return result;
  });
}

}  // namespace millrace::data::importers
