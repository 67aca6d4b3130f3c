// The per-range timing table: one row per attempt (or per item never attempted), items in
// plan order. It is what `export` writes (CSV or JSON) and what the CSV/JSON importers read
// back, so an exported run imports again unchanged. Columns (times in seconds with
// microsecond precision, work in milliseconds):
//   item, type, first, count, payload, priority, submit_s, depends_on (space-separated ids),
//   attempt, worker, start_s, end_s, duration_s, outcome, exit_code, failure_reason, work_ms
//   submitted_s, unschedulable_s, scheduled_s, node: the attempt's phases before start_s
//   (data::Attempt), empty when not recorded: handed to the cluster, first told its pod fits on
//   no node, placed on a node or slot, and that node's name
//   request.NAME (one column per resource any item requests, a Kubernetes quantity: "250m")
// Attempt columns are null (empty in CSV) on the row of an item never attempted, and so is a
// request column on the rows of an item that does not request that resource.
// CSV has no place for the run's own fields, so its rows also carry the run's units (column
// `units`, the same on every row); JSON keeps them in its "run" object.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/records.h"

namespace millrace::data {

const std::vector<std::string>& timing_columns();

// The CSV column of the run's units.
inline constexpr std::string_view kUnitsColumn = "units";

// The prefix of a resource request's column: "request.cpu" is the item's request of "cpu".
inline constexpr std::string_view kRequestPrefix = "request.";
// "request.NAME" for every resource some item requests, sorted.
std::vector<std::string> request_columns(const std::vector<WorkItem>& items);

// A JSON array of row objects keyed by timing_columns(), values typed (numbers, strings, null).
nlohmann::json timing_rows(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts);

// A cell as CSV text: strings as they are, numbers in their JSON form, null as empty.
std::string timing_cell_text(const nlohmann::json& cell);

}  // namespace millrace::data
