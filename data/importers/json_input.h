// JSON documents read through TextInput (so BOM, gzip, empty files and bounded excerpts are
// handled as for every importer), with every nlohmann error (syntax, a number out of range,
// invalid UTF-8 in a string, input cut short) turned into an Error naming file:line with the
// column and the problem, instead of a raw "[json.exception...]".
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "data/importers/text_input.h"

namespace millrace::data::importers {

// Parses the rest of `input` as one JSON document. `keep`, when given, is nlohmann's parser
// callback: returning false drops a value as soon as it is parsed, so a reader can consume a
// large array's elements one by one (json_importer.cc) instead of holding them all.
nlohmann::json parse_json(TextInput& input, const nlohmann::json::parser_callback_t& keep = nullptr);

// Parses `text`, a JSON document found inside a line (stellar-log's /metrics response);
// errors are Error(where, ...) with the column within `text`.
nlohmann::json parse_json_text(std::string_view text, const std::string& where);

}  // namespace millrace::data::importers
