// The JSON bodies pool workers send to the lease API (lease_server.h), parsed and checked
// apart from the HTTP server so that every field is validated in one place (and fuzzed:
// fuzz/lease_request.cc): a body is a JSON object (an empty body counts as {}), and a
// malformed one is refused with data::Error("body", what is wrong), which the server answers
// as 400 {"error": "body: ..."}.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "data/time.h"

namespace millrace::cluster_adapter {

// POST /v1/lease: {"worker": NAME}, NAME non-empty.
struct LeaseRequest {
  std::string worker;
};

// POST /v1/leases/ID/complete: {"exit_code": N [, "work_time_ms": N] [, "reason": TEXT]
// [, "results": [...]]}, the exit code an int, the work time a non-negative count of milliseconds
// that fits in microseconds, the results (a sweep's shard, sweep_exchange.h) an array, only with
// exit code 0.
struct CompletionReport {
  int exit_code = 0;
  std::optional<data::Micros> work_time;
  std::string reason;  // empty when not given
  std::optional<nlohmann::json> results;
};

LeaseRequest parse_lease_request(const std::string& body);
CompletionReport parse_completion_report(const std::string& body);

}  // namespace millrace::cluster_adapter
