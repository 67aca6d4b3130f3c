#include "data/importers/stellar_status_importer.h"

#include <algorithm>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/text_excerpt.h"
#include "data/importers/fields.h"
#include "data/importers/stellar_trace.h"
#include "data/importers/json_input.h"

namespace millrace::data::importers {

namespace {

const nlohmann::json& field(const nlohmann::json& doc, const char* name, const std::string& path) {
  if (!doc.contains(name)) throw Error(path, std::string("missing \"") + name + "\"");
  return doc[name];
}

std::int64_t count_field(const nlohmann::json& doc, const char* name, const std::string& path) {
  const nlohmann::json& value = field(doc, name, path);
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
    throw Error(path, std::string("\"") + name + "\" is not a count");
  }
  return value.get<std::int64_t>();
}

std::vector<std::string> strings(const nlohmann::json& doc, const char* name, const std::string& path) {
  const nlohmann::json& value = field(doc, name, path);
  if (!value.is_array()) throw Error(path, std::string("\"") + name + "\" is not an array");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      throw Error(path + ": " + name + " entry " + std::to_string(i + 1), "is not a string");
    }
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

}  // namespace

Run read_stellar_status(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  const nlohmann::json doc = parse_json(input);
  if (!doc.is_object()) throw Error(path, "/status is not a JSON object");
  Trace trace;
  std::map<std::int64_t, WorkItem, std::greater<>> items;  // tip first
  auto add_item = [&](const std::string& end_count, const std::string& where) {
    const Range range = parse_end_count(end_count, where);
    const WorkItem item = end_count_item(range);
    items.emplace(range.last(), item);
    return item.id;
  };
  const std::vector<std::string> failed = strings(doc, "jobs_failed", path);
  for (std::size_t i = 0; i < failed.size(); ++i) {
    const std::string where = path + ": jobs_failed entry " + std::to_string(i + 1);
    const std::size_t bar = failed[i].find('|');
    if (bar == std::string::npos || bar + 1 == failed[i].size()) {
      throw Error(where, excerpt(failed[i]) + " is not END/COUNT|pod");
    }
    const std::string id = add_item(failed[i].substr(0, bar), where);
    const int number = static_cast<int>(std::count_if(trace.attempts.begin(), trace.attempts.end(),
                                                      [&](const Attempt& a) { return a.item_id == id; })) + 1;
    Attempt& a = trace.attempts.emplace_back();
    a.item_id = id;
    a.number = number;
    a.worker = failed[i].substr(bar + 1);
    a.outcome = Outcome::kFailed;
    a.exit_code = 1;
    a.failure_reason = "jobs_failed";
  }
  const std::vector<std::string> running = strings(doc, "jobs_in_progress", path);
  for (std::size_t i = 0; i < running.size(); ++i) {
    const std::string id = add_item(running[i], path + ": jobs_in_progress entry " + std::to_string(i + 1));
    const int number = static_cast<int>(std::count_if(trace.attempts.begin(), trace.attempts.end(),
                                                      [&](const Attempt& a) { return a.item_id == id; })) + 1;
    Attempt& a = trace.attempts.emplace_back();
    a.item_id = id;
    a.number = number;
    a.outcome = Outcome::kRunning;
  }
  for (auto& [last, item] : items) trace.items.push_back(item);
  const nlohmann::json& workers = field(doc, "workers", path);
  if (!workers.is_array()) throw Error(path, "\"workers\" is not an array");
  trace.run.source = RunSource::kRecorded;
  trace.run.units = "ledgers";
  trace.run.policy = "fixed-pool";
  trace.run.parameters = nlohmann::json{{"snapshot", "job monitor /status"},
                                        {"num_remain", count_field(doc, "num_remain", path)},
                                        {"num_succeeded", count_field(doc, "num_succeeded", path)},
                                        {"workers", workers}}
                             .dump();
  add_trace(trace, sink, path);
  return trace.run;
}

Trace read_stellar_status(const std::string& path) { return read_whole(path, read_stellar_status); }

}  // namespace millrace::data::importers
