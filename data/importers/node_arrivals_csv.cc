#include "data/importers/node_arrivals_csv.h"

#include <algorithm>
#include <map>
#include <optional>

#include "data/csv.h"
#include "data/error.h"
#include "data/importers/csv_table.h"
#include "data/importers/fields.h"
#include "data/text_excerpt.h"
#include "data/time.h"
#include "data/timing_table.h"

namespace millrace::data::importers {

namespace {

const std::vector<std::string>& node_columns() {
  static const std::vector<std::string> columns = {"node",       "pool",          "created_s",       "ready_s",
                                                   "departed_s", "capacity_type", "present_at_start"};
  return columns;
}

std::optional<Micros> optional_seconds(const CsvRow& row, std::optional<std::size_t> column, const std::string& where,
                                       const char* what) {
  if (!column || row.fields[*column].empty()) return std::nullopt;
  return parse_seconds(row.fields[*column], where, what);
}

std::string known_columns() {
  std::string text;
  for (const std::string& column : node_columns()) text += (text.empty() ? "" : ",") + column;
  return "node arrivals have " + text;
}

std::string seconds_text(const std::optional<Micros>& us) {
  return us ? timing_cell_text(seconds_from_micros(*us)) : "";  // as export writes times
}

}  // namespace

std::vector<NodeArrival> read_node_arrivals_csv(const std::string& path) {
  TextInput input(path);
  CsvReader csv(input);
  const auto& known = node_columns();
  for (const std::string& name : csv.header()) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw Error(input.where(1), "unknown column " + excerpt(name) + " (" + known_columns() + ")");
    }
  }
  const std::optional<std::size_t> node = csv.column("node");
  if (!node) throw Error(input.where(1), "no node column (" + known_columns() + ")");
  const std::optional<std::size_t> pool = csv.column("pool");
  const std::optional<std::size_t> created = csv.column("created_s");
  const std::optional<std::size_t> ready = csv.column("ready_s");
  const std::optional<std::size_t> departed = csv.column("departed_s");
  const std::optional<std::size_t> capacity_type = csv.column("capacity_type");
  const std::optional<std::size_t> present_at_start = csv.column("present_at_start");
  std::vector<NodeArrival> nodes;
  std::map<std::string, std::string> seen;  // node -> where
  CsvRow row;
  while (csv.next_row(row)) {
    const std::string where = input.where(row.line);
    NodeArrival n;
    n.node = row.fields[*node];
    if (n.node.empty()) throw Error(where, "empty node name");
    if (auto [at, added] = seen.emplace(n.node, where); !added) {
      throw Error(where, "node " + excerpt(n.node) + " is given twice (also at " + at->second + ")");
    }
    if (pool) n.pool = row.fields[*pool];
    n.created = optional_seconds(row, created, where, "created_s");
    n.ready = optional_seconds(row, ready, where, "ready_s");
    if (n.created && n.ready && *n.ready < *n.created) throw Error(where, "ready_s is before created_s");
    n.departed = optional_seconds(row, departed, where, "departed_s");
    if (n.departed && *n.departed < std::max(n.created.value_or(0), n.ready.value_or(0))) {
      throw Error(where, "departed_s is before the node was created or ready");
    }
    if (capacity_type) n.capacity_type = row.fields[*capacity_type];
    if (n.capacity_type != "" && n.capacity_type != "spot" && n.capacity_type != "on-demand") {
      throw Error(where, "capacity_type " + excerpt(n.capacity_type) + " is none of spot, on-demand (or empty)");
    }
    const std::string at_start = present_at_start ? row.fields[*present_at_start] : "";
    if (at_start != "" && at_start != "0" && at_start != "1") {
      throw Error(where, "present_at_start " + excerpt(at_start) + " is none of 1, 0 (or empty)");
    }
    n.present_at_start = at_start == "1";
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void write_node_arrivals_csv(const std::vector<NodeArrival>& nodes, std::ostream& out) {
  std::string header;
  for (const std::string& column : node_columns()) header += (header.empty() ? "" : ",") + column;
  out << header << "\n";
  for (const NodeArrival& n : nodes) {
    out << csv_quote(n.node) << "," << csv_quote(n.pool) << "," << seconds_text(n.created) << ","
        << seconds_text(n.ready) << "," << seconds_text(n.departed) << "," << n.capacity_type << ","
        << (n.present_at_start ? "1" : "0") << "\n";
  }
}

}  // namespace millrace::data::importers
