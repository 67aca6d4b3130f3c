// A CSV file with a header line, read one row at a time (memory does not grow with the file).
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

class CsvReader {
 public:
  // Reads the header line. Throws Error like next_row.
  explicit CsvReader(TextInput& input);

  const std::vector<std::string>& header() const { return header_; }
  std::optional<std::size_t> column(const std::string& name) const;
  // Throws Error naming the header line unless the header holds exactly `columns` (any order).
  void require_columns(const std::vector<std::string>& columns) const;

  // Reads the next data row; false after the last. Throws Error naming file:line on a malformed
  // line (bad field count, truncated last line, unterminated quote) and Error naming the file
  // when the header is followed by no data rows.
  bool next_row(CsvRow& row);

 private:
  bool next_fields(std::vector<std::string>& fields);

  TextInput& input_;
  std::vector<std::string> header_;
  std::size_t header_line_ = 0;
  std::size_t rows_ = 0;
};

}  // namespace millrace::data::importers
