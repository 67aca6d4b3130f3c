#include "cluster_adapter/kubernetes/json_fields.h"

#include <limits>

namespace millrace::cluster_adapter {

using nlohmann::json;

const json& field(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

const json& object_field(const json& object, const char* key) {
  static const json kEmpty = json::object();
  const json& value = field(object, key);
  return value.is_object() ? value : kEmpty;
}

const json& array_field(const json& object, const char* key) {
  static const json kEmpty = json::array();
  const json& value = field(object, key);
  return value.is_array() ? value : kEmpty;
}

std::string text_field(const json& object, const char* key, const std::string& fallback) {
  const json& value = field(object, key);
  return value.is_string() ? value.get<std::string>() : fallback;
}

std::optional<std::int64_t> integer_field(const json& object, const char* key) {
  const json& value = field(object, key);
  if (value.is_number_unsigned()) {
    auto n = value.get<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(n);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  return std::nullopt;
}

bool is_kube_object(const json& object) {
  return object.is_object() && !text_field(object_field(object, "metadata"), "name").empty();
}

std::vector<json> kube_list_items(const json& list, const std::string& url, std::string& resource_version) {
  auto malformed = [&](const std::string& what) {
    return KubeApiError(url, 200, KubeApiError::kMalformedReason, "list answer " + what);
  };
  const json& items = field(list, "items");
  if (!items.is_array()) throw malformed("has no items array");
  const json& version = field(field(list, "metadata"), "resourceVersion");
  if (!version.is_string()) throw malformed("has no metadata.resourceVersion string");
  std::vector<json> out;
  for (const json& item : items) {
    if (!is_kube_object(item)) {
      throw malformed("holds an item that is not an object with metadata.name: " + item.dump().substr(0, 200));
    }
    out.push_back(item);
  }
  resource_version = version.get<std::string>();
  return out;
}

}  // namespace millrace::cluster_adapter
