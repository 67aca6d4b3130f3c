// The workers' side of the lease API (lease_server.h) over libcurl, as `millrace sweep-worker`
// speaks it: JSON POSTs (lease, heartbeat, complete) and a bundle's GET, each carrying the token
// as "Authorization: Bearer" (never on a command line, never printed). An answer's body is read
// up to a bound: a larger one is cut off and reported as an error, not held.
#pragma once

#include <cstddef>
#include <string>

namespace millrace::cluster_adapter {

struct LeaseAnswer {
  long status = 0;    // HTTP status; 0 when no answer came (error says why)
  std::string body;
  std::string error;  // empty when an answer came whole
};

class LeaseClient {
 public:
  // `url`: the lease API's base (http://HOST:PORT); `token`: empty when the API needs none.
  LeaseClient(std::string url, std::string token);

  // POSTs `json_body` to `path`; reads at most `max_bytes` of the answer.
  LeaseAnswer post(const std::string& path, const std::string& json_body, std::size_t max_bytes = 1 << 20) const;
  // GETs `path`; reads at most `max_bytes` of the answer.
  LeaseAnswer get(const std::string& path, std::size_t max_bytes) const;

 private:
  LeaseAnswer call(const std::string& path, const std::string* json_body, std::size_t max_bytes) const;

  std::string url_;
  std::string token_;
};

}  // namespace millrace::cluster_adapter
