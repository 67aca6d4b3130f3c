#include "cluster_adapter/http/status_server.h"

#include <httplib.h>

#include "cluster_adapter/http/live_page.h"
#include "data/redaction.h"

namespace millrace::cluster_adapter {

StatusServer::StatusServer(int port, const std::string& host) : server_(std::make_unique<httplib::Server>()) {
  server_->Get("/status", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(current().status_json, "application/json");
  });
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(current().metrics_text, "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  for (const PageFile& file : live_page_files()) {
    server_->Get(std::string(file.path), [file](const httplib::Request&, httplib::Response& response) {
      response.set_header("Content-Security-Policy", std::string(kLivePageSecurityPolicy));
      response.set_header("X-Content-Type-Options", "nosniff");
      response.set_content(file.body.data(), file.body.size(), std::string(file.content_type));
    });
  }
  HttpLimits limits;
  limits.max_body = 4 * 1024;  // GET requests only
  listener_ = std::make_unique<HttpListener>(*server_, host, port, limits);
}

StatusServer::~StatusServer() = default;

void StatusServer::publish(StatusDocuments documents) {
  // Last stop before the operator's screen: what the cluster's API said may hold credentials.
  documents.status_json = data::redact(documents.status_json);
  documents.metrics_text = data::redact(documents.metrics_text);
  std::lock_guard lock(mutex_);
  documents_ = std::move(documents);
}

StatusDocuments StatusServer::current() const {
  std::lock_guard lock(mutex_);
  return documents_;
}

}  // namespace millrace::cluster_adapter
