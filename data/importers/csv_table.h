// A CSV file with a header line, read into rows of fields that remember their line numbers.
// Blank lines are skipped; every other line must have as many fields as the header.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "data/importers/text_input.h"

namespace millrace::data::importers {

struct CsvRow {
  std::size_t line = 0;  // 1-based line number in the file
  std::vector<std::string> fields;
};

struct CsvTable {
  std::vector<std::string> header;
  std::vector<CsvRow> rows;

  std::optional<std::size_t> column(const std::string& name) const;
};

// Throws Error naming file:line on a malformed line (bad field count, truncated last line,
// unterminated quote) and Error naming the file when it has a header but no data rows.
CsvTable read_csv_table(const TextInput& input);

// Throws Error naming the file unless the header holds exactly `columns` (in any order).
void require_columns(const TextInput& input, const CsvTable& table, const std::vector<std::string>& columns);

}  // namespace millrace::data::importers
