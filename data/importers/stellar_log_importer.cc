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

// Reads the /metrics response, the rest of the line from its `{"metrics"`, one entry at a time.
void read_metrics(TextInput& input, StellarRecording& recording) {
  const std::string line = input.where();
  std::size_t entries = 0;
  const nlohmann::json doc = parse_json_list(
      input, "metrics",
      [&](const nlohmann::json& element, const std::string&) {
        const std::string where = line + ": entry " + std::to_string(++entries);
        if (!element.is_string()) throw Error(where, "entry is not a string");
        recording.add(parse_stellar_entry(element.get<std::string>(), where, Suffixes::kRequired));
      },
      JsonExtent::kRestOfLine);
  if (!doc.contains("metrics") || !doc["metrics"].is_array()) throw Error(line, "\"metrics\" is not an array");
  if (entries == 0) throw Error(line, "the /metrics line has no entries");
}

}  // namespace

Run read_stellar_log(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  StellarRecording recording(path);
  std::size_t metrics_line = 0;
  bool mission_finished = false;
  std::size_t last_complete = 0;
  std::string last_complete_text;
  // Lines are read up to a {"metrics" they hold: the /metrics response, however long, is parsed
  // from the stream and never held whole.
  while (input.next_line_until(kMetricsKey)) {
    const std::string_view head = input.line();
    const std::string text = excerpt(head);
    if (metrics_line == 0 && input.rest_open() && head.find("/metrics") != std::string_view::npos) {
      metrics_line = input.line_number();
      read_metrics(input, recording);
    } else if (metrics_line != 0 && !input.cut_off() && head.find(kMissionEnd) != std::string_view::npos) {
      mission_finished = true;
    }
    if (!input.cut_off()) {
      last_complete = input.line_number();
      last_complete_text = text;
    }
  }
  if (metrics_line == 0) {
    throw Error(path, "no job monitor /metrics line with {\"metrics\": [...]} (is this a stellar-supercluster log?)");
  }
  if (!mission_finished) {
    throw Error(path, "truncated log: no complete \"" + std::string(kMissionEnd) + "\" line after the /metrics response at " +
                          input.where(metrics_line) + "; the last complete line is " +
                          (last_complete == 0 ? std::string("none") : input.where(last_complete) + " " + last_complete_text) +
                          ". A log cut short may hold only part of the run: nothing was imported");
  }
  return recording.write(sink);
}

Trace read_stellar_log(const std::string& path) { return read_whole(path, read_stellar_log); }

}  // namespace millrace::data::importers
