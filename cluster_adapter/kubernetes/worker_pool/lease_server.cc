#include "cluster_adapter/kubernetes/worker_pool/lease_server.h"

#include <httplib.h>

#include <algorithm>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cluster_adapter/kubernetes/json_fields.h"
#include "cluster_adapter/realtime/attempt_values.h"
#include "cluster_adapter/kubernetes/worker_pool/lease_request.h"
#include "data/error.h"
#include "data/redaction.h"

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxBody = 64 * 1024;
constexpr std::size_t kMaxCompletionBody = 1024 * 1024;  // a shard's results

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

json item_of(const scheduler::Submission& submission, const std::string& run) {
  const data::WorkItem item = submission.item();
  json out = {{"run", run}};
  for (const AttemptValue& value : attempt_values(item, submission.attempt)) {
    out[std::string(value.name)] = value.number ? json(*value.number) : json(value.text);
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

const char* recorded_of(LeaseReply answer) { return answer == LeaseReply::kSucceeded ? "succeeded" : "failed"; }

// Answers a heartbeat or completion that found no lease held; false when `answer` is kOk or,
// for a completion, the outcome it reports (`completing`).
bool refused(httplib::Response& res, LeaseReply answer, const std::string& id,
             std::optional<LeaseReply> completing = std::nullopt) {
  switch (answer) {
    case LeaseReply::kOk: return false;
    case LeaseReply::kSucceeded:
    case LeaseReply::kFailed:
      if (answer == completing) return false;
      reply(res, 409, {{"error", "lease " + id + " was already completed: recorded " + recorded_of(answer) +
                                     (completing ? " (a second completion changes nothing)" : " (no heartbeat needed)")},
                       {"recorded", recorded_of(answer)}});
      return true;
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

// `parse` applied to the request's body, or a 400 naming what is wrong (413 when it is over `limit`).
template <typename Parse>
auto body_of(const httplib::Request& req, httplib::Response& res, Parse parse, std::size_t limit = kMaxBody)
    -> std::optional<decltype(parse(req.body))> {
  if (req.body.size() > limit) {
    reply(res, 413, {{"error", "body: over " + std::to_string(limit / 1024) + " KiB"}});
    return std::nullopt;
  }
  try {
    return parse(req.body);
  } catch (const data::Error& e) {
    reply(res, 400, {{"error", e.what()}});
    return std::nullopt;
  }
}

}  // namespace

LeaseServer::LeaseServer(LeaseBook& book, const std::string& run, int workers, const std::string& host, int port,
                         const std::string& token, std::shared_ptr<SweepExchange> sweep)
    : book_(book), run_(run), sweep_(std::move(sweep)), server_(std::make_unique<httplib::Server>()) {
  accept_token(token);
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (authorized(req.get_header_value("Authorization"))) return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer");
    reply(res, 401, {{"error", "missing or wrong lease token: send Authorization: Bearer $MILLRACE_LEASE_TOKEN"}});
    return httplib::Server::HandlerResponse::Handled;
  });
  server_->Post("/v1/lease", [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<LeaseRequest> request = body_of(req, res, parse_lease_request);
    if (!request) return;
    LeaseOffer offer = book_.lease(request->worker);
    switch (offer.action) {
      case LeaseOffer::Action::kWork: return reply(res, 200, work_of(offer.lease, book_.terms(), offer.lease.granted, run_));
      case LeaseOffer::Action::kWait: return reply(res, 200, {{"action", "wait"}});
      case LeaseOffer::Action::kExit: return reply(res, 200, {{"action", "exit"}});
    }
  });
  server_->Post(R"(/v1/leases/([^/]+)/heartbeat)", [this](const httplib::Request& req, httplib::Response& res) {
    std::string id = req.matches[1];
    if (req.body.size() > kMaxBody) return reply(res, 413, {{"error", "body: over 64 KiB"}});
    data::Micros expires = 0;
    LeaseReply answer = book_.heartbeat(id, &expires);
    if (refused(res, answer, id)) return;
    reply(res, 200, {{"expires_in_ms", book_.terms().duration / data::kMicrosPerMilli}});
  });
  server_->Post(R"(/v1/leases/([^/]+)/complete)", [this](const httplib::Request& req, httplib::Response& res) {
    std::string id = req.matches[1];
    std::optional<CompletionReport> report = body_of(req, res, parse_completion_report, kMaxCompletionBody);
    if (!report || !results_taken(id, *report, res)) return;
    auto keep = [&](const std::string& item) {
      if (report->results) sweep_->keep(item, std::move(*report->results));
    };
    LeaseReply answer = book_.complete(id, report->exit_code, report->reason, report->work_time, keep);
    if (refused(res, answer, id, report->exit_code == 0 ? LeaseReply::kSucceeded : LeaseReply::kFailed)) return;
    reply(res, 200, {{"recorded", recorded_of(answer)}});
  });
  server_->Get(R"(/v1/bundles/([0-9a-f]{64}))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string sha = req.matches[1];
    std::shared_ptr<const std::string> bundle = sweep_ ? sweep_->bundle(sha) : nullptr;
    if (!bundle) return reply(res, 404, {{"error", "no bundle " + sha + " in this run"}});
    res.status = 200;
    res.set_content(*bundle, "application/octet-stream");
  });
  HttpLimits limits;
  limits.threads += 2 * workers;  // each idle worker holds a thread while its lease request waits
  limits.max_body = kMaxCompletionBody;
  listener_ = std::make_unique<HttpListener>(*server_, host, port, limits);
}

// Whether a completion's results (or their absence) suit the run, else a 400 naming why. A lease
// no longer held is left to the book to answer (410, 404, 409).
bool LeaseServer::results_taken(const std::string& id, const CompletionReport& report, httplib::Response& res) const {
  const bool expected = sweep_ && sweep_->expects_results();
  if (report.results && !expected) {
    reply(res, 400, {{"error", "body: results are a sweep shard's; this run expects none"}});
    return false;
  }
  if (!expected || report.exit_code != 0) return true;
  const std::optional<std::string> item = book_.item_of(id);
  if (!item) return true;
  if (!report.results) {
    reply(res, 400, {{"error", "body: a sweep shard's success carries its results (\"results\": [...])"}});
    return false;
  }
  try {
    sweep_->check(*item, *report.results);
  } catch (const data::Error& e) {
    reply(res, 400, {{"error", std::string("body: ") + e.what()}});
    return false;
  }
  return true;
}

void LeaseServer::accept_token(const std::string& token) {
  if (token.empty()) return;
  data::register_secret(token);
  std::lock_guard lock(tokens_mutex_);
  if (std::find(tokens_.begin(), tokens_.end(), token) == tokens_.end()) tokens_.push_back(token);
}

bool LeaseServer::authorized(const std::string& authorization) const {
  std::lock_guard lock(tokens_mutex_);
  if (tokens_.empty()) return true;
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.compare(0, kScheme.size(), kScheme) != 0) return false;
  std::string_view given = std::string_view(authorization).substr(kScheme.size());
  bool match = false;
  for (const std::string& token : tokens_) {
    // Every byte compared whatever differs first, so the time taken does not tell the token.
    unsigned char differ = given.size() == token.size() ? 0 : 1;
    for (std::size_t i = 0; i < token.size(); ++i) {
      differ |= static_cast<unsigned char>(token[i] ^ (i < given.size() ? given[i] : 0));
    }
    match |= differ == 0;
  }
  return match;
}

LeaseServer::~LeaseServer() = default;

}  // namespace millrace::cluster_adapter
