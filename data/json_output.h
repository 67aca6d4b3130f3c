// Writing JSON: every document millrace writes (a model file, an exported run, a command's
// --json answer) is dumped through json_text, so text that is not UTF-8 (a name stored by an
// older millrace or another program) is an Error naming the document and the field that holds
// it, instead of nlohmann's raw "[json.exception.type_error.316] invalid UTF-8 byte".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace millrace::data {

// `value` as JSON text (nlohmann's dump(indent)); throws Error(input, "field run.name is not
// UTF-8 (byte 0xFF at 2)") when a string in it is not UTF-8.
std::string json_text(const nlohmann::json& value, int indent, const std::string& input);

}  // namespace millrace::data
