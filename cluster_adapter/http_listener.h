// Runs a configured cpp-httplib server on its own thread for as long as the listener lives:
// binds the address first (port 0: any free port) so a failure to bind is an error at once,
// starts listening, and only returns once the server runs, so that stopping it in the
// destructor cannot be lost. Shared by the run's HTTP servers (status, worker leases).
#pragma once

#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace millrace::cluster_adapter {

class HttpListener {
 public:
  // Throws data::Error naming http://host:port when it cannot bind. `server` must outlive it.
  HttpListener(httplib::Server& server, const std::string& host, int port);
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
