#include "data/importers/csv_table.h"

#include <algorithm>

#include "data/csv.h"
#include "data/error.h"

namespace millrace::data::importers {

std::optional<std::size_t> CsvTable::column(const std::string& name) const {
  auto found = std::find(header.begin(), header.end(), name);
  if (found == header.end()) return std::nullopt;
  return static_cast<std::size_t>(found - header.begin());
}

CsvTable read_csv_table(const TextInput& input) {
  CsvTable table;
  bool have_header = false;
  for (std::size_t n = 1; n <= input.line_count(); ++n) {
    if (input.line(n).find_first_not_of(" \t") == std::string_view::npos) continue;
    std::string problem;
    auto fields = split_csv_line(input.line(n), problem);
    if (!fields) throw Error(input.where(n), (input.cut_off(n) ? "truncated file: " : "") + problem);
    if (!have_header) {
      table.header = std::move(*fields);
      have_header = true;
      continue;
    }
    if (fields->size() != table.header.size()) {
      throw Error(input.where(n), input.field_count_problem(n, fields->size(), table.header.size()));
    }
    table.rows.push_back(CsvRow{n, std::move(*fields)});
  }
  if (table.rows.empty()) throw Error(input.name(), "no data rows after the header");
  return table;
}

void require_columns(const TextInput& input, const CsvTable& table, const std::vector<std::string>& columns) {
  auto sorted_header = table.header;
  auto sorted_columns = columns;
  std::sort(sorted_header.begin(), sorted_header.end());
  std::sort(sorted_columns.begin(), sorted_columns.end());
  if (sorted_header == sorted_columns) return;
  std::string expected;
  for (const auto& c : columns) expected += (expected.empty() ? "" : ",") + c;
  throw Error(input.where(1), "unexpected header (expected the columns " + expected + ")");
}

}  // namespace millrace::data::importers
