#include "data/importers/stellar_log_importer.h"

#include "data/error.h"
#include "data/importers/json_input.h"
#include "data/importers/stellar_trace.h"
#include "data/importers/text_input.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

namespace {

constexpr std::string_view kMetricsKey = "{\"metrics\"";
constexpr std::string_view kMissionEnd = "Finished mission";

Trace metrics_trace(const TextInput& input, std::size_t brace) {
  const std::string_view line = input.line();
  const nlohmann::json doc = parse_json_text(line.substr(brace), input.where());
  if (!doc.contains("metrics") || !doc["metrics"].is_array()) throw Error(input.where(), "\"metrics\" is not an array");
  const nlohmann::json& metrics = doc["metrics"];
  if (metrics.empty()) throw Error(input.where(), "the /metrics line has no entries");
  std::vector<StellarEntry> entries;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    std::string where = input.where() + ": entry " + std::to_string(i + 1);
    if (!metrics[i].is_string()) throw Error(where, "entry is not a string");
    entries.push_back(parse_stellar_entry(metrics[i].get<std::string>(), where, Suffixes::kRequired));
  }
  return stellar_trace(std::move(entries), input.name());
}

}  // namespace

Run read_stellar_log(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  std::optional<Trace> trace;
  std::size_t metrics_line = 0;
  bool mission_finished = false;
  std::size_t last_complete = 0;
  std::string last_complete_text;
  while (input.next_line()) {
    const std::string_view line = input.line();
    if (!input.cut_off()) {
      last_complete = input.line_number();
      last_complete_text = excerpt(line);
    }
    const std::size_t brace = line.find(kMetricsKey);
    if (!trace && line.find("/metrics") != std::string_view::npos && brace != std::string_view::npos) {
      trace = metrics_trace(input, brace);
      metrics_line = input.line_number();
    } else if (trace && !input.cut_off() && line.find(kMissionEnd) != std::string_view::npos) {
      mission_finished = true;
    }
  }
  if (!trace) {
    throw Error(path, "no job monitor /metrics line with {\"metrics\": [...]} (is this a stellar-supercluster log?)");
  }
  if (!mission_finished) {
    throw Error(path, "truncated log: no complete \"" + std::string(kMissionEnd) + "\" line after the /metrics response at " +
                          input.where(metrics_line) + "; the last complete line is " +
                          (last_complete == 0 ? std::string("none") : input.where(last_complete) + " " + last_complete_text) +
                          ". A log cut short may hold only part of the run: nothing was imported");
  }
  add_trace(*trace, sink, path);
  return trace->run;
}

Trace read_stellar_log(const std::string& path) { return read_whole(path, read_stellar_log); }

}  // namespace millrace::data::importers
