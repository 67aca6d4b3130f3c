// Reading fields of JSON the Kubernetes API (or any peer) sent, without trusting its shape:
// nlohmann's const operator[] on a missing key is undefined behaviour and value() throws on a
// wrong type, so answers are read through these instead. A field that is absent, null or of
// another type than asked reads as absent (an empty object, array or string, or nullopt); the
// callers decide whether that is acceptable or a malformed answer (see is_kube_object).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/kube_api_error.h"

namespace millrace::cluster_adapter {

// `object[key]` when `object` is an object holding `key`, else a null value.
const nlohmann::json& field(const nlohmann::json& object, const char* key);
// The field when it is an object / an array, else an empty one.
const nlohmann::json& object_field(const nlohmann::json& object, const char* key);
const nlohmann::json& array_field(const nlohmann::json& object, const char* key);
// The field when it is a string, else `fallback`.
std::string text_field(const nlohmann::json& object, const char* key, const std::string& fallback = "");
// The field when it is an integer that fits in int64 (a JSON number without fraction), else nullopt.
std::optional<std::int64_t> integer_field(const nlohmann::json& object, const char* key);

// An API object as the adapter needs it at least: a JSON object whose metadata is an object
// with a non-empty string name. Anything else in an answer is malformed.
bool is_kube_object(const nlohmann::json& object);

// The items of a list answer, {"metadata": {"resourceVersion": TEXT}, "items": [API objects]},
// with its resourceVersion; anything else throws a KubeApiError with kMalformedReason naming `url`.
std::vector<nlohmann::json> kube_list_items(const nlohmann::json& list, const std::string& url,
                                            std::string& resource_version);

}  // namespace millrace::cluster_adapter
