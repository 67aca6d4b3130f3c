// The run's HTTP status server (cpp-httplib, on its own thread): GET /status returns the
// scheduler's status report as JSON, GET /metrics the Prometheus text exposition, GET /healthz
// "ok", and GET / the live page (live_page.h), which shows /status in a browser. The scheduler core is single-threaded, so the server never reads it: the event loop
// renders both documents and publish()es them; the server serves the last published copy,
// handed over under a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "cluster_adapter/http/http_listener.h"

namespace httplib {
class Server;
}

namespace millrace::cluster_adapter {

struct StatusDocuments {
  std::string status_json = "{}";
  std::string metrics_text;
};

class StatusServer {
 public:
  // Binds `host`:`port` (port 0: any free port, see port()) and starts serving. Throws
  // data::Error naming the address when it cannot bind.
  explicit StatusServer(int port, const std::string& host = "127.0.0.1");
  // Stops the server and joins its thread.
  ~StatusServer();
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  int port() const { return listener_->port(); }
  // Replaces what the endpoints serve; called from the event loop's thread.
  void publish(StatusDocuments documents);

 private:
  StatusDocuments current() const;

  std::unique_ptr<httplib::Server> server_;
  mutable std::mutex mutex_;
  StatusDocuments documents_;
  std::unique_ptr<HttpListener> listener_;  // last: stopped before what its handlers use
};

}  // namespace millrace::cluster_adapter
