#include "data/timing_table.h"

#include <algorithm>
#include <map>
#include <set>

#include "data/quantity.h"

namespace millrace::data {

namespace {

nlohmann::json seconds(Micros us) { return seconds_from_micros(us); }

std::string joined(const std::vector<std::string>& ids) {
  std::string text;
  for (const auto& id : ids) text += (text.empty() ? "" : " ") + id;
  return text;
}

nlohmann::json row(const WorkItem& item, const Attempt* attempt) {
  nlohmann::json r = nlohmann::json::object();
  r["item"] = item.id;
  r["type"] = item.type;
  r["first"] = item.range ? nlohmann::json(item.range->first) : nlohmann::json();
  r["count"] = item.range ? nlohmann::json(item.range->count) : nlohmann::json();
  r["payload"] = item.payload;
  r["priority"] = item.priority;
  r["submit_s"] = seconds(item.submit_at);
  r["depends_on"] = joined(item.depends_on);
  for (const auto& [resource, milli] : item.requests) {
    r[std::string(kRequestPrefix) + resource] = format_quantity_milli(milli);
  }
  for (const char* column : {"attempt", "worker", "start_s", "end_s", "duration_s", "outcome", "exit_code",
                             "failure_reason", "work_ms", "submitted_s", "unschedulable_s", "scheduled_s", "node"}) {
    r[column] = nullptr;
  }
  if (attempt != nullptr) {
    r["attempt"] = attempt->number;
    r["worker"] = attempt->worker;
    r["start_s"] = seconds(attempt->start);
    r["end_s"] = seconds(attempt->end);
    r["duration_s"] = seconds(attempt->duration());
    r["outcome"] = to_string(attempt->outcome);
    r["exit_code"] = attempt->exit_code;
    r["failure_reason"] = attempt->failure_reason;
    if (attempt->work_time) r["work_ms"] = static_cast<double>(*attempt->work_time) / kMicrosPerMilli;
    if (attempt->submitted) r["submitted_s"] = seconds(*attempt->submitted);
    if (attempt->unschedulable) r["unschedulable_s"] = seconds(*attempt->unschedulable);
    if (attempt->placed) r["scheduled_s"] = seconds(*attempt->placed);
    if (!attempt->node.empty()) r["node"] = attempt->node;
  }
  return r;
}

}  // namespace

const std::vector<std::string>& timing_columns() {
  static const std::vector<std::string> columns = {
      "item",    "type",   "first",   "count", "payload", "priority", "submit_s",       "depends_on", "attempt",
      "worker",  "start_s", "end_s",  "duration_s", "outcome", "exit_code", "failure_reason", "work_ms",
      "submitted_s", "unschedulable_s", "scheduled_s", "node"};
  return columns;
}

std::vector<std::string> request_columns(const std::vector<WorkItem>& items) {
  std::set<std::string> names;
  for (const WorkItem& item : items) {
    for (const auto& [resource, milli] : item.requests) names.insert(std::string(kRequestPrefix) + resource);
  }
  return {names.begin(), names.end()};
}

nlohmann::json timing_rows(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts) {
  std::map<std::string, std::vector<const Attempt*>> by_item;
  for (const auto& a : attempts) by_item[a.item_id].push_back(&a);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& item : items) {
    auto found = by_item.find(item.id);
    if (found == by_item.end()) {
      rows.push_back(row(item, nullptr));
      continue;
    }
    auto tries = found->second;
    std::stable_sort(tries.begin(), tries.end(), [](const Attempt* a, const Attempt* b) { return a->number < b->number; });
    for (const Attempt* a : tries) rows.push_back(row(item, a));
  }
  return rows;
}

std::string timing_cell_text(const nlohmann::json& cell) {
  if (cell.is_null()) return "";
  if (cell.is_string()) return cell.get<std::string>();
  return cell.dump();
}

}  // namespace millrace::data
