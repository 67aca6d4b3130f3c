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

}  // namespace

Run read_timing_json(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  TimingRecordReader records(sink);
  std::size_t rows = 0;
  const nlohmann::json doc = parse_json_list(input, "rows", [&](const nlohmann::json& row, const std::string& where) {
    ++rows;
    if (!row.is_object()) throw Error(where, "a row must be an object");
    records.add(record_of(row, where));
  });
  Run run;
  const nlohmann::json* list = &doc;
  if (doc.is_object()) {
    if (!doc.contains("rows")) throw Error(path, "a JSON object needs a \"rows\" array");
    if (doc.contains("run")) keep_run_fields(doc["run"], path + ": run", run);
    list = &doc["rows"];
  }
  if (!list->is_array()) throw Error(path, "expected an array of rows");
  if (rows == 0) throw Error(path, "no rows");
  records.finish(path);
  run.source = RunSource::kImported;
  return run;
}

Trace read_timing_json(const std::string& path) { return read_whole(path, read_timing_json); }

}  // namespace millrace::data::importers
