#include "data/importers/json_importer.h"

#include "data/error.h"
#include "data/importers/json_input.h"
#include "data/importers/timing_records.h"
#include "data/timing_table.h"

namespace millrace::data::importers {

namespace {

void keep_run_fields(const nlohmann::json& run, const std::string& where, Run& out) {
  if (!run.is_object()) throw Error(where, "\"run\" must be an object");
  auto text = [&](const char* key, std::string& field) {
    if (run.contains(key) && run[key].is_string()) field = run[key].get<std::string>();
  };
  text("units", out.units);
  text("partitioner", out.partitioner);
  text("policy", out.policy);
  if (run.contains("parameters")) {
    out.parameters = run["parameters"].is_string() ? run["parameters"].get<std::string>() : run["parameters"].dump();
  }
}

TimingRecord record_of(const nlohmann::json& row, std::string where) {
  TimingRecord record{std::move(where), {}};
  for (const auto& [key, value] : row.items()) {
    if (value.is_object() || value.is_array()) throw Error(record.where, key + " must be a number, string or null");
    std::string text = timing_cell_text(value);
    if (!text.empty()) record.fields[key] = std::move(text);
  }
  return record;
}

// Follows nlohmann's parser events to find the rows: the elements of the top-level array, or of
// the "rows" array of a top-level object. Each row becomes a record as soon as it is parsed and
// is dropped from the document.
class RowStream {
 public:
  RowStream(const std::string& path, TimingRecordReader& records) : path_(path), records_(records) {}

  bool on_event(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth == 0 && event == Event::object_start) top_object_ = true;
    if (top_object_ && depth == 1 && event == Event::key) top_key_ = parsed.get<std::string>();
    const bool row = depth == (top_object_ ? 2 : 1) && (!top_object_ || top_key_ == "rows");
    if (!row) return true;
    switch (event) {
      case Event::object_start:
        ++rows_;
        return true;
      case Event::object_end:
        records_.add(record_of(parsed, where()));
        return false;
      case Event::value:
      case Event::array_start:
        ++rows_;
        throw Error(where(), "a row must be an object");
      default:
        return true;
    }
  }

  std::size_t rows() const { return rows_; }

 private:
  std::string where() const { return path_ + ": row " + std::to_string(rows_); }

  const std::string& path_;
  TimingRecordReader& records_;
  bool top_object_ = false;
  std::string top_key_;
  std::size_t rows_ = 0;
};

}  // namespace

Run read_timing_json(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  TimingRecordReader records(sink);
  RowStream stream(path, records);
  const nlohmann::json doc = parse_json(input, [&stream](int depth, nlohmann::json::parse_event_t event,
                                                         nlohmann::json& parsed) {
    return stream.on_event(depth, event, parsed);
  });
  Run run;
  const nlohmann::json* rows = &doc;
  if (doc.is_object()) {
    if (!doc.contains("rows")) throw Error(path, "a JSON object needs a \"rows\" array");
    if (doc.contains("run")) keep_run_fields(doc["run"], path + ": run", run);
    rows = &doc["rows"];
  }
  if (!rows->is_array()) throw Error(path, "expected an array of rows");
  if (stream.rows() == 0) throw Error(path, "no rows");
  records.finish(path);
  run.source = RunSource::kImported;
  return run;
}

Trace read_timing_json(const std::string& path) { return read_whole(path, read_timing_json); }

}  // namespace millrace::data::importers
