#include "data/importers/csv_table.h"

#include <algorithm>

#include "data/csv.h"
#include "data/error.h"

namespace millrace::data::importers {

CsvReader::CsvReader(TextInput& input) : input_(input) {
  next_fields(header_);
  header_line_ = input_.line_number();
}

bool CsvReader::next_fields(std::vector<std::string>& fields) {
  while (input_.next_line()) {
    if (input_.line().find_first_not_of(" \t") == std::string_view::npos) continue;
    std::string problem;
    auto split = split_csv_line(input_.line(), problem);
    if (!split) throw Error(input_.where(), (input_.cut_off() ? "truncated file: " : "") + problem);
    fields = std::move(*split);
    return true;
  }
  return false;
}

std::optional<std::size_t> CsvReader::column(const std::string& name) const {
  auto found = std::find(header_.begin(), header_.end(), name);
  if (found == header_.end()) return std::nullopt;
  return static_cast<std::size_t>(found - header_.begin());
}

void CsvReader::require_columns(const std::vector<std::string>& columns) const {
  auto sorted_header = header_;
  auto sorted_columns = columns;
  std::sort(sorted_header.begin(), sorted_header.end());
  std::sort(sorted_columns.begin(), sorted_columns.end());
  if (sorted_header == sorted_columns) return;
  std::string expected;
  for (const auto& c : columns) expected += (expected.empty() ? "" : ",") + c;
  throw Error(input_.where(header_line_), "unexpected header (expected the columns " + expected + ")");
}

bool CsvReader::next_row(CsvRow& row) {
  if (!next_fields(row.fields)) {
    if (rows_ == 0) throw Error(input_.name(), "no data rows after the header");
    return false;
  }
  if (row.fields.size() != header_.size()) {
    throw Error(input_.where(), input_.field_count_problem(row.fields.size(), header_.size()));
  }
  row.line = input_.line_number();
  ++rows_;
  return true;
}

}  // namespace millrace::data::importers
