#include "data/importers/json_importer.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/text_input.h"
#include "data/importers/timing_records.h"
#include "data/timing_table.h"

namespace millrace::data::importers {

namespace {

nlohmann::json parse(const TextInput& input) {
  try {
    return nlohmann::json::parse(input.text());
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t byte = std::min(e.byte, input.text().size());
    auto line = 1 + std::count(input.text().begin(), input.text().begin() + static_cast<long>(byte), '\n');
    bool at_end = e.byte >= input.text().size();
    throw Error(input.where(static_cast<std::size_t>(line)),
                std::string(at_end ? "truncated file: " : "malformed JSON: ") + e.what());
  }
}

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

}  // namespace

Trace read_timing_json(const std::string& path) {
  auto input = TextInput::read(path);
  nlohmann::json doc = parse(input);
  Run run;
  const nlohmann::json* rows = &doc;
  if (doc.is_object()) {
    if (!doc.contains("rows")) throw Error(path, "a JSON object needs a \"rows\" array");
    if (doc.contains("run")) keep_run_fields(doc["run"], path + ": run", run);
    rows = &doc["rows"];
  }
  if (!rows->is_array()) throw Error(path, "expected an array of rows");
  if (rows->empty()) throw Error(path, "no rows");
  std::vector<TimingRecord> records;
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const auto& row = (*rows)[i];
    TimingRecord record{path + ": row " + std::to_string(i + 1), {}};
    if (!row.is_object()) throw Error(record.where, "a row must be an object");
    for (const auto& [key, value] : row.items()) {
      if (value.is_object() || value.is_array()) throw Error(record.where, key + " must be a number, string or null");
      std::string text = timing_cell_text(value);
      if (!text.empty()) record.fields[key] = text;
    }
    records.push_back(std::move(record));
  }
  Trace trace = trace_from_timing_records(records);
  trace.run.units = run.units;
  trace.run.partitioner = run.partitioner;
  trace.run.policy = run.policy;
  trace.run.parameters = run.parameters;
  trace.run.source = RunSource::kImported;
  return trace;
}

}  // namespace millrace::data::importers
