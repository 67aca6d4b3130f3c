// Runs a configured cpp-httplib server on its own thread for as long as the listener lives:
// binds the address first (port 0: any free port) so a failure to bind is an error at once,
// starts listening, and only returns once the server runs, so that stopping it in the
// destructor cannot be lost. Shared by the run's HTTP servers (status, worker leases).
//
// It also hardens the server against its clients, since cpp-httplib's defaults do not: request
// bodies are bounded (a larger Content-Length is answered 413 and never buffered), reads and
// writes time out, TCP_NODELAY is set (without it a keep-alive client waits for the delayed ACK
// on every answer: ~40 ms a request), and keep-alive connections serve many requests.
// A crowd of idle connections cannot starve the server: cpp-httplib serves a connection on one
// thread from accept to close, waiting for its first request as for the next, so with a fixed
// pool (32 threads) 1,000 connections that send nothing queued a heartbeat or a scrape behind
// them for (1,000 / 32) x the keep-alive wait, ~2.5 minutes. Here every accepted connection gets
// a thread at once (threads are started as connections come, up to `threads`, and reused), an
// idle connection is closed after the keep-alive wait (2 s), the listen backlog is the system's
// (httplib's is 5) and the soft limit of open files is raised to the hard one, so 1,000 idle
// connections (2,000 descriptors when the crowd is in the same process) leave room for more.
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
  int threads = 4096;                                 // connections served at once, a thread each
  std::size_t max_body = 64 * 1024;                   // bytes of a request body
  data::Micros read_timeout = 5 * data::kMicrosPerSecond;   // per read of a request
  data::Micros write_timeout = 5 * data::kMicrosPerSecond;  // per write of an answer
  data::Micros keep_alive_timeout = 2 * data::kMicrosPerSecond;  // idle wait for a (next) request
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
