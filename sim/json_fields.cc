#include "sim/json_fields.h"

#include <cmath>
#include <limits>
#include <utility>

#include "data/error.h"

namespace millrace::sim {

using nlohmann::json;

JsonFields::JsonFields(const json& object, std::string where) : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw data::Error(where_, "must be a JSON object");
}

const json& JsonFields::at(const char* key) {
  auto it = object_.find(key);
  if (it == object_.end()) throw data::Error(where_ + "." + key, "missing");
  read_.insert(key);
  return *it;
}

std::int64_t JsonFields::integer(const char* key, std::int64_t min, std::int64_t max) {
  const json& v = at(key);
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) ||
      v.get<std::int64_t>() < min || v.get<std::int64_t>() > max) {
    throw data::Error(where_ + "." + key, "must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return v.get<std::int64_t>();
}

std::int64_t JsonFields::count(const char* key) { return integer(key, 0, std::numeric_limits<std::int64_t>::max()); }

double JsonFields::real(const char* key) {
  const json& v = at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    throw data::Error(where_ + "." + key, "must be a finite number >= 0");
  }
  return v.get<double>();
}

bool JsonFields::flag(const char* key) {
  const json& v = at(key);
  if (!v.is_boolean()) throw data::Error(where_ + "." + key, "must be true or false");
  return v.get<bool>();
}

std::string JsonFields::text(const char* key, std::size_t longest) {
  const json& v = at(key);
  if (!v.is_string() || v.get<std::string>().size() > longest) {
    throw data::Error(where_ + "." + key, "must be a string of at most " + std::to_string(longest) + " characters");
  }
  return v.get<std::string>();
}

std::vector<std::string> JsonFields::names(const char* key, std::size_t most) {
  const json& v = at(key);
  if (!v.is_array() || v.size() > most) {
    throw data::Error(where_ + "." + key, "must be an array of at most " + std::to_string(most) + " names");
  }
  std::vector<std::string> out;
  for (const json& name : v) {
    if (!name.is_string() || name.get<std::string>().empty()) {
      throw data::Error(where_ + "." + key, "must hold non-empty strings");
    }
    out.push_back(name.get<std::string>());
  }
  return out;
}

void JsonFields::finish(const std::string& what) const {
  for (const auto& [key, value] : object_.items()) {
    if (!read_.count(key)) throw data::Error(where_ + "." + key, "is not a field of " + what);
  }
}

}  // namespace millrace::sim
