#include "data/csv.h"

namespace millrace::data {

std::string csv_quote(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::optional<std::vector<std::string>> split_csv_line(std::string_view line, std::string& problem) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields(1);
  std::size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ',') {
      fields.emplace_back();
      ++i;
    } else if (c == '"' && fields.back().empty()) {
      ++i;
      for (;;) {
        if (i >= line.size()) {
          problem = "unterminated quoted field " + std::to_string(fields.size());
          return std::nullopt;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        fields.back() += line[i++];
      }
      if (i < line.size() && line[i] != ',') {
        problem = "text after the closing quote of field " + std::to_string(fields.size());
        return std::nullopt;
      }
    } else {
      fields.back() += c;
      ++i;
    }
  }
  return fields;
}

}  // namespace millrace::data
