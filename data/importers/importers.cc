#include "data/importers/importers.h"

#include <filesystem>
#include <functional>
#include <map>

#include "data/error.h"
#include "data/importers/csv_importer.h"
#include "data/importers/ethereum_importer.h"
#include "data/importers/json_importer.h"
#include "data/importers/profile_importer.h"
#include "data/importers/stellar_csv_importer.h"
#include "data/importers/stellar_log_importer.h"
#include "data/importers/stellar_metrics_importer.h"
#include "data/importers/stellar_status_importer.h"
#include "data/importers/swf_importer.h"

namespace millrace::data::importers {

namespace {

const std::map<std::string, std::function<Trace(const std::string&)>>& trace_readers() {
  static const std::map<std::string, std::function<Trace(const std::string&)>> readers = {
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

}  // namespace

const std::vector<std::string>& import_formats() {
  static const std::vector<std::string> formats = {"csv", "json", "swf", "ethereum", "stellar-log", "stellar-csv",
                                                     "stellar-metrics", "stellar-status", "profile"};
  return formats;
}

ParsedInput parse_input(const std::string& format, const std::string& path, const ImportOptions& options) {
  ParsedInput parsed;
  if (format == "ethereum") {
    parsed.profile = read_ethereum_profile(path, ethereum_series_from_string(options.series));
    if (!options.name.empty()) parsed.profile->name = options.name;
    return parsed;
  }
  if (format == "profile") {
    parsed.profile = read_cost_profile(path);
    parsed.profile->name = options.name.empty() ? stem(path) : options.name;
    return parsed;
  }
  auto reader = trace_readers().find(format);
  if (reader == trace_readers().end()) {
    std::string known;
    for (const auto& f : import_formats()) known += (known.empty() ? "" : ", ") + f;
    throw Error("--format " + format, "unknown import format (known: " + known + ")");
  }
  parsed.trace = reader->second(path);
  parsed.trace->run.name = options.name.empty() ? stem(path) : options.name;
  return parsed;
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
  return store_input(store, parse_input(format, path, options));
}

}  // namespace millrace::data::importers
