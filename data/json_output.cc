#include "data/json_output.h"

#include <optional>

#include "data/error.h"
#include "data/text_excerpt.h"

namespace millrace::data {

namespace {

// The first string (or key) of `value` that is not UTF-8: its field path and what breaks it.
std::optional<std::string> invalid_field(const nlohmann::json& value, const std::string& path) {
  const auto problem = [](const std::string& text) -> std::optional<std::string> {
    const std::string found = utf8_problem(text);
    if (found.empty()) return std::nullopt;
    return "is not UTF-8 (" + found + ")";
  };
  if (value.is_string()) {
    if (auto p = problem(value.get_ref<const std::string&>())) return "field " + path + " " + *p;
  } else if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      const std::string where = path.empty() ? key : path + "." + key;
      if (auto p = problem(key)) return "a key in " + (path.empty() ? std::string("the document") : path) + " " + *p;
      if (auto found = invalid_field(member, where)) return found;
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto found = invalid_field(value[i], path + "[" + std::to_string(i) + "]")) return found;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string json_text(const nlohmann::json& value, int indent, const std::string& input) {
  try {
    return value.dump(indent);
  } catch (const nlohmann::json::type_error&) {
    const std::optional<std::string> field = invalid_field(value, "");
    throw Error(input, "cannot be written as JSON: " + field.value_or("it holds text that is not UTF-8"));
  }
}

}  // namespace millrace::data
