#include "cluster_adapter/http/http_listener.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "data/error.h"

namespace millrace::cluster_adapter {

HttpListener::HttpListener(httplib::Server& server, const std::string& host, int port, const HttpLimits& limits)
    : server_(server) {
  const int threads = limits.threads;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  server_.set_payload_max_length(limits.max_body);
  server_.set_read_timeout(std::chrono::microseconds(limits.read_timeout));
  server_.set_write_timeout(std::chrono::microseconds(limits.write_timeout));
  server_.set_keep_alive_timeout(static_cast<time_t>((limits.keep_alive_timeout + data::kMicrosPerSecond - 1) /
                                                     data::kMicrosPerSecond));
  server_.set_keep_alive_max_count(static_cast<std::size_t>(limits.keep_alive_requests));
  server_.set_tcp_nodelay(true);
  // httplib's default sets SO_REUSEPORT, which would let two servers share a port silently.
  server_.set_socket_options([](int socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  const std::string address = "http://" + host + ":" + std::to_string(port);
  port_ = port == 0 ? server_.bind_to_any_port(host) : (server_.bind_to_port(host, port) ? port : -1);
  if (port_ < 0) throw data::Error(address, "cannot bind (port in use or not permitted)");
  auto listening_ended = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([this, listening_ended] {
    server_.listen_after_bind();
    *listening_ended = true;
  });
  // httplib's stop() does nothing before the server runs: wait until it does.
  while (!server_.is_running() && !*listening_ended) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpListener::~HttpListener() {
  server_.stop();
  thread_.join();
}

}  // namespace millrace::cluster_adapter
