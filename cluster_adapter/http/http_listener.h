// Runs a configured cpp-httplib server on its own thread for as long as the listener lives:
// binds the address first (port 0: any free port) so a failure to bind is an error at once,
// starts listening, and only returns once the server runs, so that stopping it in the
// destructor cannot be lost. Shared by the run's HTTP servers (status, worker leases).
//
// It also hardens the server against its clients, since cpp-httplib's defaults do not: request
// bodies are bounded (a larger Content-Length is answered 413 and never buffered), reads and
// writes time out, TCP_NODELAY is set (without it a keep-alive client waits for the delayed ACK
// on every answer: ~40 ms a request), keep-alive connections serve many requests, and the thread
// pool is sized by the caller, so a few slow clients cannot take every thread.
#pragma once

#include <cstddef>
#include <string>
#include <thread>

#include "data/time.h"

namespace httplib {
class Server;
}

namespace millrace::cluster_adapter {

struct HttpLimits {
  int threads = 32;                                   // connections served at once
  std::size_t max_body = 64 * 1024;                   // bytes of a request body
  data::Micros read_timeout = 5 * data::kMicrosPerSecond;   // per read of a request
  data::Micros write_timeout = 5 * data::kMicrosPerSecond;  // per write of an answer
  data::Micros keep_alive_timeout = 5 * data::kMicrosPerSecond;
  int keep_alive_requests = 1000;                     // requests on one connection
};

class HttpListener {
 public:
  // Throws data::Error naming http://host:port when it cannot bind. `server` must outlive it.
  HttpListener(httplib::Server& server, const std::string& host, int port, const HttpLimits& limits = {});
  // Stops the server and joins its thread.
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  int port() const { return port_; }

 private:
  httplib::Server& server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace millrace::cluster_adapter
