#include "cluster_adapter/status_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>

#include "data/error.h"

namespace millrace::cluster_adapter {

StatusServer::StatusServer(int port, const std::string& host) : server_(std::make_unique<httplib::Server>()) {
  // httplib's default sets SO_REUSEPORT, which would let two servers share a port silently.
  server_->set_socket_options([](int socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->Get("/status", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(current().status_json, "application/json");
  });
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(current().metrics_text, "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  const std::string address = "http://" + host + ":" + std::to_string(port);
  port_ = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (port_ < 0) throw data::Error(address, "status server cannot bind (port in use or not permitted)");
  auto listening_ended = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([this, listening_ended] {
    server_->listen_after_bind();
    *listening_ended = true;
  });
  // httplib's stop() does nothing before the server runs: wait until it does, so that the
  // destructor's stop() cannot be lost.
  while (!server_->is_running() && !*listening_ended) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

StatusServer::~StatusServer() {
  server_->stop();
  thread_.join();
}

void StatusServer::publish(StatusDocuments documents) {
  std::lock_guard lock(mutex_);
  documents_ = std::move(documents);
}

StatusDocuments StatusServer::current() const {
  std::lock_guard lock(mutex_);
  return documents_;
}

}  // namespace millrace::cluster_adapter
