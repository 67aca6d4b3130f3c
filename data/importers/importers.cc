#include "data/importers/importers.h"

#include <filesystem>
#include <functional>
#include <map>

#include "data/error.h"
#include "data/importers/csv_importer.h"
#include "data/importers/ethereum_importer.h"
#include "data/importers/json_importer.h"
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
                                                     "stellar-metrics", "stellar-status"};
  return formats;
}

ImportResult import_file(TraceStore& store, const std::string& format, const std::string& path,
                         const ImportOptions& options) {
  ImportResult result;
  if (format == "ethereum") {
    CostProfile profile = read_ethereum_profile(path, ethereum_series_from_string(options.series));
    if (!options.name.empty()) profile.name = options.name;
    store.put_profile(profile);
    result.name = profile.name;
    result.profile_bins = profile.bins.size();
    return result;
  }
  auto reader = trace_readers().find(format);
  if (reader == trace_readers().end()) {
    std::string known;
    for (const auto& f : import_formats()) known += (known.empty() ? "" : ", ") + f;
    throw Error("--format " + format, "unknown import format (known: " + known + ")");
  }
  Trace trace = reader->second(path);
  trace.run.name = options.name.empty() ? stem(path) : options.name;
  result.run_id = store.add_run(trace.run, trace.items, trace.attempts);
  result.name = trace.run.name;
  result.items = trace.items.size();
  result.attempts = trace.attempts.size();
  return result;
}

}  // namespace millrace::data::importers
