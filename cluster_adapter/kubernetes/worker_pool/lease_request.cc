#include "cluster_adapter/kubernetes/worker_pool/lease_request.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/json_input.h"

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxWorkerName = 253;  // a pod name: a DNS subdomain
constexpr std::size_t kMaxReason = 1024;

bool has_control_character(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

json object_of(const std::string& body) {
  json parsed = body.empty() ? json::object() : data::importers::parse_json_text(body, "body");
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
  if (!worker.is_string() || worker.get<std::string>().empty() || worker.get<std::string>().size() > kMaxWorkerName ||
      has_control_character(worker.get<std::string>())) {
    throw data::Error("body", "worker must be the pod's name, a string of 1 to " + std::to_string(kMaxWorkerName) +
                                  " printable characters");
  }
  return {worker.get<std::string>()};
}

CompletionReport parse_completion_report(const std::string& body) {
  const json report = object_of(body);
  const json& exit_code = field(report, "exit_code");
  const json& work_ms = field(report, "work_time_ms");
  const json& reason = field(report, "reason");
  CompletionReport out;
  if (!exit_code.is_number_integer() || (exit_code.is_number_unsigned() && exit_code.get<std::uint64_t>() >
                                                                            std::numeric_limits<int>::max()) ||
      exit_code.get<std::int64_t>() < std::numeric_limits<int>::min() ||
      exit_code.get<std::int64_t>() > std::numeric_limits<int>::max()) {
    throw data::Error("body", "exit_code must be an integer that fits in 32 bits");
  }
  out.exit_code = static_cast<int>(exit_code.get<std::int64_t>());
  if (!work_ms.is_null()) {
    constexpr std::int64_t kMaxWorkMs = std::numeric_limits<data::Micros>::max() / data::kMicrosPerMilli;
    if (!(work_ms.is_number_integer() && !(work_ms.is_number_unsigned() && work_ms.get<std::uint64_t>() >
                                                                              static_cast<std::uint64_t>(kMaxWorkMs)) &&
          work_ms.get<std::int64_t>() >= 0 && work_ms.get<std::int64_t>() <= kMaxWorkMs)) {
      throw data::Error("body", "work_time_ms must be an integer from 0 to " + std::to_string(kMaxWorkMs));
    }
    out.work_time = work_ms.get<data::Micros>() * data::kMicrosPerMilli;
  }
  if (!reason.is_null() && !(reason.is_string() && reason.get<std::string>().size() <= kMaxReason &&
                             !has_control_character(reason.get<std::string>()))) {
    throw data::Error("body", "reason must be a string of at most " + std::to_string(kMaxReason) +
                                  " printable characters");
  }
  if (reason.is_string()) out.reason = reason.get<std::string>();
  const json& results = field(report, "results");
  if (!results.is_null()) {
    if (!results.is_array()) throw data::Error("body", "results must be an array (a shard's replica results)");
    if (out.exit_code != 0) throw data::Error("body", "results come with exit_code 0 only");
    out.results = results;
  }
  return out;
}

}  // namespace millrace::cluster_adapter
