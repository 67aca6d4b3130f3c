#include "cluster_adapter/lease_server.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

json item_of(const scheduler::Submission& submission, const std::string& run) {
  const data::WorkItem& item = *submission.item;
  json out = {{"run", run}, {"id", item.id}, {"attempt", submission.attempt}, {"type", item.type},
              {"payload", item.payload}};
  if (item.range) {
    const data::Range& r = *item.range;
    out.update({{"first", r.first}, {"count", r.count}, {"last", r.last()}, {"end", r.end()},
                {"end_count", r.end_count()}});
  }
  return out;
}

json work_of(const Lease& lease, const LeaseTerms& terms, data::Micros now, const std::string& run) {
  return {{"action", "work"},
          {"lease", {{"id", lease.id},
                     {"expires_in_ms", (lease.expires - now) / data::kMicrosPerMilli},
                     {"heartbeat_every_ms", terms.heartbeat / data::kMicrosPerMilli}}},
          {"item", item_of(lease.submission, run)}};
}

// Answers a heartbeat or completion that found no lease held; false when `answer` is kOk.
bool refused(httplib::Response& res, LeaseReply answer, const std::string& id) {
  switch (answer) {
    case LeaseReply::kOk: return false;
    case LeaseReply::kExpired:
      reply(res, 410, {{"error", "lease " + id + " expired: its item went back to the queue; ask for a new lease"}});
      return true;
    case LeaseReply::kCancelled:
      reply(res, 410, {{"error", "lease " + id + " was cancelled (the run is stopping): drop its item"}});
      return true;
    case LeaseReply::kUnknown:
      reply(res, 404, {{"error", "no lease " + id + " (the scheduler may have restarted): ask for a new lease"}});
      return true;
  }
  return false;
}

// The body as a JSON object, or a 400 naming what is wrong.
std::optional<json> body_of(const httplib::Request& req, httplib::Response& res) {
  json body = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
  if (!body.is_object()) {
    reply(res, 400, {{"error", "body: not a JSON object"}});
    return std::nullopt;
  }
  return body;
}

}  // namespace

LeaseServer::LeaseServer(LeaseBook& book, const std::string& run, int workers, const std::string& host, int port)
    : book_(book), run_(run), server_(std::make_unique<httplib::Server>()) {
  // Each idle worker holds a thread while its lease request waits; heartbeats need more.
  const int threads = 2 * workers + 8;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->Post("/v1/lease", [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<json> body = body_of(req, res);
    if (!body) return;
    if (!(*body)["worker"].is_string() || (*body)["worker"].get<std::string>().empty()) {
      return reply(res, 400, {{"error", "body: worker must be a non-empty string (the pod's name)"}});
    }
    LeaseOffer offer = book_.lease((*body)["worker"].get<std::string>());
    switch (offer.action) {
      case LeaseOffer::Action::kWork: return reply(res, 200, work_of(offer.lease, book_.terms(), offer.lease.granted, run_));
      case LeaseOffer::Action::kWait: return reply(res, 200, {{"action", "wait"}});
      case LeaseOffer::Action::kExit: return reply(res, 200, {{"action", "exit"}});
    }
  });
  server_->Post(R"(/v1/leases/([^/]+)/heartbeat)", [this](const httplib::Request& req, httplib::Response& res) {
    std::string id = req.matches[1];
    data::Micros expires = 0;
    LeaseReply answer = book_.heartbeat(id, &expires);
    if (refused(res, answer, id)) return;
    reply(res, 200, {{"expires_in_ms", book_.terms().duration / data::kMicrosPerMilli}});
  });
  server_->Post(R"(/v1/leases/([^/]+)/complete)", [this](const httplib::Request& req, httplib::Response& res) {
    std::string id = req.matches[1];
    std::optional<json> body = body_of(req, res);
    if (!body) return;
    const json& exit_code = (*body)["exit_code"];
    const json& work_ms = (*body)["work_time_ms"];
    const json& reason = (*body)["reason"];
    if (!exit_code.is_number_integer()) return reply(res, 400, {{"error", "body: exit_code must be an integer"}});
    if (!work_ms.is_null() && !(work_ms.is_number_integer() && work_ms.get<std::int64_t>() >= 0)) {
      return reply(res, 400, {{"error", "body: work_time_ms must be a non-negative integer"}});
    }
    if (!reason.is_null() && !reason.is_string()) return reply(res, 400, {{"error", "body: reason must be a string"}});
    std::optional<data::Micros> work_time;
    if (!work_ms.is_null()) work_time = work_ms.get<data::Micros>() * data::kMicrosPerMilli;
    int code = exit_code.get<int>();
    LeaseReply answer = book_.complete(id, code, reason.is_string() ? reason.get<std::string>() : "", work_time);
    if (refused(res, answer, id)) return;
    reply(res, 200, {{"recorded", code == 0 ? "succeeded" : "failed"}});
  });
  listener_ = std::make_unique<HttpListener>(*server_, host, port);
}

LeaseServer::~LeaseServer() = default;

}  // namespace millrace::cluster_adapter
