#include "cluster_adapter/lease_request.h"

#include <nlohmann/json.hpp>

#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

json object_of(const std::string& body) {
  json parsed = body.empty() ? json::object() : json::parse(body, nullptr, false);
  if (!parsed.is_object()) throw data::Error("body", "not a JSON object");
  return parsed;
}

// The field `key` of `body`, null when absent.
const json& field(const json& body, const char* key) {
  static const json absent;
  auto it = body.find(key);
  return it == body.end() ? absent : *it;
}

}  // namespace

LeaseRequest parse_lease_request(const std::string& body) {
  const json request = object_of(body);
  const json& worker = field(request, "worker");
  if (!worker.is_string() || worker.get<std::string>().empty()) {
    throw data::Error("body", "worker must be a non-empty string (the pod's name)");
  }
  return {worker.get<std::string>()};
}

CompletionReport parse_completion_report(const std::string& body) {
  const json report = object_of(body);
  const json& exit_code = field(report, "exit_code");
  const json& work_ms = field(report, "work_time_ms");
  const json& reason = field(report, "reason");
  CompletionReport out;
  if (!exit_code.is_number_integer()) throw data::Error("body", "exit_code must be an integer");
  out.exit_code = exit_code.get<int>();
  if (!work_ms.is_null()) {
    if (!(work_ms.is_number_integer() && work_ms.get<std::int64_t>() >= 0)) {
      throw data::Error("body", "work_time_ms must be a non-negative integer");
    }
    out.work_time = work_ms.get<data::Micros>() * data::kMicrosPerMilli;
  }
  if (!reason.is_null() && !reason.is_string()) throw data::Error("body", "reason must be a string");
  if (reason.is_string()) out.reason = reason.get<std::string>();
  return out;
}

}  // namespace millrace::cluster_adapter
