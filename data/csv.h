// The CSV text format as millrace reads and writes it: comma-separated fields, a field that
// holds a comma, quote or line break is quoted with "" doubling inner quotes (RFC 4180), one
// record per line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace millrace::data {

// Quotes `field` only when it needs it.
std::string csv_quote(std::string_view field);

// Splits one line into fields; on a malformed line (an unterminated quote, text after a
// closing quote) returns nullopt and sets `problem`.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line, std::string& problem);

}  // namespace millrace::data
