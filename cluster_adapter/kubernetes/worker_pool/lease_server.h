// The worker pool's HTTP API (cpp-httplib), on its own port so it can listen where the pods
// reach it while the status server stays on loopback. Workers speak JSON:
//   POST /v1/lease                  {"worker": NAME}
//        -> 200 {"action": "work", "lease": {"id", "expires_in_ms", "heartbeat_every_ms"},
//                "item": {"run", "id", "attempt", "type", "payload"
//                         [, "first", "count", "last", "end", "end_count"]}}
//        -> 200 {"action": "wait"}     nothing to do yet: ask again
//        -> 200 {"action": "exit"}     no more work for this worker: exit 0
//   POST /v1/leases/ID/heartbeat    -> 200 {"expires_in_ms"}
//   POST /v1/leases/ID/complete     {"exit_code": N [, "work_time_ms": N] [, "reason": TEXT]
//                                    [, "results": [...]]}
//        -> 200 {"recorded": "succeeded" | "failed"}  what is stored (a repeated completion with the
//           same outcome gets the same answer)
//   GET  /v1/bundles/SHA256          a sweep's bundle (sweep_exchange.h): 200 its bytes
//        (application/octet-stream), or 404 {"error"} when this run serves none with that hash
// A sweep's run (a SweepExchange expecting results) refuses with 400 a success without results
// and results its check refuses (naming the field); results are kept from the completion
// recorded, once per item. Results are refused by runs that expect none.
// A heartbeat of a completed lease, or a completion contradicting the first (exit 3, then 0),
// gets 409 Conflict {"error", "recorded"}: the first outcome stands, nothing is changed.
// A heartbeat or completion of a lease that expired or was cancelled gets 410 Gone, of one the
// scheduler does not know (it restarted) 404; both with {"error": TEXT}: the worker drops that
// item and asks for a new lease. A malformed body (not JSON, a key given twice, nested too deep,
// a bad field) gets 400 {"error"} naming the problem, a body
// over 64 KiB 413, except a completion's, which may reach 1 MiB (a shard's results: some 400
// bytes a replica, so up to about 2,500 replicas a shard). Every request sends a JSON body ({} when it has nothing to say), so it
// carries a Content-Length. When the server has tokens, every request must carry
// "Authorization: Bearer TOKEN" with one of them, else it gets 401 {"error"}.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster_adapter/http/http_listener.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_book.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_request.h"
#include "cluster_adapter/kubernetes/worker_pool/sweep_exchange.h"

namespace httplib {
class Server;
struct Response;
}

namespace millrace::cluster_adapter {

class LeaseServer {
 public:
  // Serves `book` on host:port (port 0: any free port) with enough threads for `workers`
  // waiting lease requests besides their heartbeats. A non-empty `token` is required of every
  // request. `sweep`, when given, serves its bundles and takes the shards' results. Throws
  // data::Error naming the address when it cannot bind.
  LeaseServer(LeaseBook& book, const std::string& run, int workers, const std::string& host, int port,
              const std::string& token = "", std::shared_ptr<SweepExchange> sweep = nullptr);
  ~LeaseServer();
  LeaseServer(const LeaseServer&) = delete;
  LeaseServer& operator=(const LeaseServer&) = delete;

  int port() const { return listener_->port(); }
  // Accepts `token` too (the workers of a pool Job an earlier session made carry its token).
  void accept_token(const std::string& token);

 private:
  bool authorized(const std::string& authorization) const;
  bool results_taken(const std::string& id, const CompletionReport& report, httplib::Response& res) const;

  LeaseBook& book_;
  std::string run_;
  std::shared_ptr<SweepExchange> sweep_;
  mutable std::mutex tokens_mutex_;
  std::vector<std::string> tokens_;  // empty: no token required
  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<HttpListener> listener_;  // last: stopped before what its handlers use
};

}  // namespace millrace::cluster_adapter
