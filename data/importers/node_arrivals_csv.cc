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
  static const std::vector<std::string> columns = {"node", "pool", "created_s", "ready_s"};
  return columns;
}

std::optional<Micros> optional_seconds(const CsvRow& row, std::optional<std::size_t> column, const std::string& where,
                                       const char* what) {
  if (!column || row.fields[*column].empty()) return std::nullopt;
  return parse_seconds(row.fields[*column], where, what);
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
      throw Error(input.where(1), "unknown column " + excerpt(name) + " (node arrivals have node,pool,created_s,ready_s)");
    }
  }
  const std::optional<std::size_t> node = csv.column("node");
  if (!node) throw Error(input.where(1), "no node column (node arrivals have node,pool,created_s,ready_s)");
  const std::optional<std::size_t> pool = csv.column("pool");
  const std::optional<std::size_t> created = csv.column("created_s");
  const std::optional<std::size_t> ready = csv.column("ready_s");
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
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void write_node_arrivals_csv(const std::vector<NodeArrival>& nodes, std::ostream& out) {
  out << "node,pool,created_s,ready_s\n";
  for (const NodeArrival& n : nodes) {
    out << csv_quote(n.node) << "," << csv_quote(n.pool) << "," << seconds_text(n.created) << ","
        << seconds_text(n.ready) << "\n";
  }
}

}  // namespace millrace::data::importers
