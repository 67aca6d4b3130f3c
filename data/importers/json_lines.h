// JSON inputs whose errors name lines. nlohmann::json does not keep where a value was, so a
// list of records (ranges, profile rows) parsed with it could only be reported as "row 7";
// this parser also records the line on which each element of the list starts, so importers
// report a JSON record as "file:line" like a line of a text file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/importers/whole_text.h"

namespace millrace::data::importers {

struct JsonWithLines {
  nlohmann::json doc;
  std::vector<std::size_t> element_lines;  // 1-based line of each element of the list, in order
};

// Parses `input`. The list is the document itself when it is an array, or the array under
// `list_key` of a top-level object. Throws Error naming file:line for malformed or truncated JSON.
JsonWithLines parse_json_with_lines(const WholeText& input, const std::string& list_key);

// True when the text's first non-blank character opens a JSON array or object.
bool looks_like_json(const WholeText& input);

}  // namespace millrace::data::importers
