#include "tests/cluster_adapter/kubernetes/fake_apiserver.h"

#include <httplib.h>

#include <chrono>
#include <ctime>
#include <regex>
#include <stdexcept>
#include <sstream>

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

struct ResourceInfo {
  const char* kind;
  const char* list_kind;
  const char* api_version;
  const char* group;
};

const ResourceInfo& info(const std::string& resource) {
  static const ResourceInfo kJobs{"Job", "JobList", "batch/v1", "batch"};
  static const ResourceInfo kPods{"Pod", "PodList", "v1", ""};
  static const ResourceInfo kNodes{"Node", "NodeList", "v1", ""};
  return resource == "jobs" ? kJobs : resource == "nodes" ? kNodes : kPods;
}

data::Micros steady_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string rfc3339_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

std::string name_of(const json& object) { return object["metadata"].value("name", ""); }
std::string ns_of(const json& object) { return object["metadata"].value("namespace", "default"); }

json status_object(int code, const std::string& reason, const std::string& message,
                   const json& details = json::object()) {
  json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
                 {"status", code < 400 ? "Success" : "Failure"}, {"code", code}};
  if (!reason.empty()) status["reason"] = reason;
  if (!message.empty()) status["message"] = message;
  if (!details.empty()) status["details"] = details;
  return status;
}

void reply(httplib::Response& res, int code, const json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

void fail(httplib::Response& res, int code, const std::string& reason, const std::string& message,
          const json& details = json::object()) {
  reply(res, code, status_object(code, reason, message, details));
}

// One requirement of a label selector: key=value, key==value, key!=value, key, !key.
struct Requirement {
  std::string key;
  std::string op;  // "=", "!=", "exists", "!exists"
  std::string value;
};

std::vector<Requirement> parse_selector(const std::string& text) {
  std::vector<Requirement> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty()) continue;
    Requirement r;
    if (auto p = part.find("!="); p != std::string::npos) {
      r = {part.substr(0, p), "!=", part.substr(p + 2)};
    } else if (auto q = part.find("=="); q != std::string::npos) {
      r = {part.substr(0, q), "=", part.substr(q + 2)};
    } else if (auto e = part.find('='); e != std::string::npos) {
      r = {part.substr(0, e), "=", part.substr(e + 1)};
    } else if (part[0] == '!') {
      r = {part.substr(1), "!exists", ""};
    } else {
      r = {part, "exists", ""};
    }
    out.push_back(r);
  }
  return out;
}

bool matches(const std::vector<Requirement>& selector, const std::string& field_name, const json& object) {
  const json& meta = object["metadata"];
  if (!field_name.empty() && meta.value("name", "") != field_name) return false;
  json labels = meta.value("labels", json::object());
  for (const auto& r : selector) {
    bool has = labels.contains(r.key);
    std::string value = has ? labels[r.key].get<std::string>() : "";
    if (r.op == "=" && (!has || value != r.value)) return false;
    if (r.op == "!=" && has && value == r.value) return false;
    if (r.op == "exists" && !has) return false;
    if (r.op == "!exists" && has) return false;
  }
  return true;
}

std::string field_selector_name(const httplib::Request& req) {
  std::string field = req.get_param_value("fieldSelector");
  const std::string prefix = "metadata.name=";
  return field.rfind(prefix, 0) == 0 ? field.substr(prefix.size()) : "";
}

bool is_finished(const json& job) {
  for (const auto& c : job["status"].value("conditions", json::array())) {
    std::string type = c.value("type", "");
    if ((type == "Complete" || type == "Failed") && c.value("status", "") == "True") return true;
  }
  return false;
}

// Indexes as the Job controller writes status.completedIndexes: "0-2,5".
std::string index_ranges(const std::set<int>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    int first = *it, last = first;
    while (++it != indexes.end() && *it == last + 1) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(first);
    if (last > first) {
      out += '-';
      out += std::to_string(last);
    }
  }
  return out;
}

bool valid_dns_label(const std::string& name) {
  static const std::regex kLabel("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return !name.empty() && name.size() <= 63 && std::regex_match(name, kLabel);
}

}  // namespace

// A watch connection's position: what it has sent and what it waits for.
struct FakeApiServer::WatchState {
  std::string resource;
  std::string ns;  // empty: all namespaces
  std::vector<Requirement> selector;
  std::string field_name;
  std::int64_t sent_rv = 0;
  std::vector<json> initial;  // synthetic ADDED events for a watch without a resourceVersion
  bool gone = false;          // answer 410 at once
  std::uint64_t drop_generation = 0;
  std::uint64_t expire_generation = 0;
  data::Micros deadline = 0;
  data::Micros last_written = 0;  // steady time of the last write: a blank line keeps it alive
};

FakeApiServer::FakeApiServer(FakeApiServerOptions options) : options_(std::move(options)) {
  if (!options_.plan) options_.plan = [](const json&) { return PodPlan{}; };
  objects_["jobs"];
  objects_["pods"];
  start_http();
  kubelet_thread_ = std::thread([this] { kubelet_loop(); });
}

FakeApiServer::~FakeApiServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  stop_http();
  kubelet_thread_.join();
}

void FakeApiServer::start_http() {
  if (options_.tls) {
    const FakeApiTls& tls = *options_.tls;
    http_ = std::make_unique<httplib::SSLServer>(tls.certificate.c_str(), tls.key.c_str(),
                                                 tls.client_ca.empty() ? nullptr : tls.client_ca.c_str());
    auto* server = static_cast<httplib::SSLServer*>(http_.get());
    if (!server->is_valid()) throw std::runtime_error("test API server: cannot use " + tls.certificate);
    if (!tls.client_ca.empty()) SSL_CTX_set_verify(server->ssl_context(), SSL_VERIFY_PEER, nullptr);
  } else {
    http_ = std::make_unique<httplib::Server>();
  }
  http_->new_task_queue = [] { return new httplib::ThreadPool(24); };
  route();
  if (port_ == 0) {
    port_ = http_->bind_to_any_port("127.0.0.1");
  } else {
    http_->bind_to_port("127.0.0.1", port_);
  }
  http_thread_ = std::thread([this] { http_->listen_after_bind(); });
  // stop() does nothing until the accept loop runs, so do not hand out a server before that.
  while (!http_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void FakeApiServer::stop_http() {
  if (!http_) return;
  http_->stop();
  http_thread_.join();
  http_.reset();
}

void FakeApiServer::pause() {
  {
    std::lock_guard lock(mutex_);
    ++drop_generation_;
  }
  changed_.notify_all();
  stop_http();
}

void FakeApiServer::resume() { start_http(); }

void FakeApiServer::inject_errors(int count, int status, int retry_after_seconds, const std::string& method) {
  std::lock_guard lock(mutex_);
  injected_method_ = method;
  injected_left_ = count;
  injected_status_ = status;
  injected_retry_after_ = retry_after_seconds;
}

void FakeApiServer::echo_headers_in_errors(bool on) {
  std::lock_guard lock(mutex_);
  echo_headers_ = on;
}

void FakeApiServer::answer_malformed(bool on) {
  {
    std::lock_guard lock(mutex_);
    malformed_ = on;
    ++drop_generation_;  // open watches end, so the next ones meet the wrong shapes
  }
  changed_.notify_all();
}

void FakeApiServer::drop_watches() {
  {
    std::lock_guard lock(mutex_);
    ++drop_generation_;
  }
  changed_.notify_all();
}

void FakeApiServer::expire_watches() {
  {
    std::lock_guard lock(mutex_);
    ++expire_generation_;
    expire_next_ = true;
    events_.clear();
    oldest_watchable_rv_ = rv_ + 1;
  }
  changed_.notify_all();
}

FakeApiRecord FakeApiServer::record() const {
  std::lock_guard lock(mutex_);
  return record_;
}

std::vector<json> FakeApiServer::objects(const std::string& resource) const {
  std::lock_guard lock(mutex_);
  std::vector<json> out;
  for (const auto& [key, object] : objects_.at(resource)) out.push_back(object);
  return out;
}

int FakeApiServer::create_requests(const std::string& job_name) const {
  std::lock_guard lock(mutex_);
  auto it = create_requests_.find(job_name);
  return it == create_requests_.end() ? 0 : it->second;
}

std::int64_t FakeApiServer::resource_version() const {
  std::lock_guard lock(mutex_);
  return rv_;
}

void FakeApiServer::route() {
  auto& s = *http_;
  std::string address = "127.0.0.1:" + std::to_string(port_);
  s.Get("/version", [](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, {{"major", "1"}, {"minor", "32"}, {"gitVersion", "v1.32.0-millrace-fake"},
                     {"gitCommit", "0000000000000000000000000000000000000000"},
                     {"gitTreeState", "clean"}, {"buildDate", "2026-01-01T00:00:00Z"},
                     {"goVersion", "go1.23"}, {"compiler", "gc"}, {"platform", "linux/amd64"}});
  });
  s.Get("/api", [](const httplib::Request& req, httplib::Response& res) {
    reply(res, 200, {{"kind", "APIVersions"}, {"versions", {"v1"}},
                     {"serverAddressByClientCIDRs",
                      {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", req.get_header_value("Host")}}}}});
  });
  s.Get("/apis", [](const httplib::Request&, httplib::Response& res) {
    json version = {{"groupVersion", "batch/v1"}, {"version", "v1"}};
    reply(res, 200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"},
                     {"groups", {{{"name", "batch"}, {"versions", {version}}, {"preferredVersion", version}}}}});
  });
  auto resource_list = [](const std::string& group_version, const std::string& name,
                          const std::string& kind, const json& short_names) {
    json verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    return json{{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", group_version},
                {"resources", {{{"name", name}, {"singularName", ""}, {"namespaced", true},
                                {"kind", kind}, {"verbs", verbs}, {"shortNames", short_names}},
                               {{"name", name + "/status"}, {"singularName", ""}, {"namespaced", true},
                                {"kind", kind}, {"verbs", {"get", "patch", "update"}}}}}};
  };
  json core = resource_list("v1", "pods", "Pod", {"po"});
  core["resources"].push_back({{"name", "namespaces"}, {"singularName", ""}, {"namespaced", false},
                               {"kind", "Namespace"}, {"verbs", {"get", "list"}}, {"shortNames", {"ns"}}});
  json batch = resource_list("batch/v1", "jobs", "Job", json::array());
  batch["resources"][0]["categories"] = {"all"};
  s.Get("/api/v1", [core](const httplib::Request&, httplib::Response& res) { reply(res, 200, core); });
  s.Get("/apis/batch/v1", [batch](const httplib::Request&, httplib::Response& res) { reply(res, 200, batch); });

  // OpenAPI v3, only as much as kubectl reads to learn that the server validates fields
  // itself (the fieldValidation parameter on the resource's operations).
  s.Get("/openapi/v3", [](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, {{"paths", {{"api/v1", {{"serverRelativeURL", "/openapi/v3/api/v1?hash=1"}}},
                                {"apis/batch/v1", {{"serverRelativeURL", "/openapi/v3/apis/batch/v1?hash=1"}}}}}});
  });
  auto openapi = [](const std::string& collection_path, const std::string& group, const std::string& kind) {
    json gvk = {{{"group", group}, {"version", "v1"}, {"kind", kind}}};
    json op = {{"parameters", {{{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}}}},
                               {{"name", "fieldManager"}, {"in", "query"}, {"schema", {{"type", "string"}}}}}},
               {"responses", {{"200", {{"description", "OK"}}}}},
               {"x-kubernetes-group-version-kind", gvk[0]}};
    return json{{"openapi", "3.0.0"}, {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
                {"paths", {{collection_path, {{"post", op}}}, {collection_path + "/{name}", {{"patch", op}, {"put", op}}}}}};
  };
  json core_openapi = openapi("/api/v1/namespaces/{namespace}/pods", "", "Pod");
  json batch_openapi = openapi("/apis/batch/v1/namespaces/{namespace}/jobs", "batch", "Job");
  s.Get("/openapi/v3/api/v1", [core_openapi](const httplib::Request&, httplib::Response& res) { reply(res, 200, core_openapi); });
  s.Get("/openapi/v3/apis/batch/v1", [batch_openapi](const httplib::Request&, httplib::Response& res) { reply(res, 200, batch_openapi); });

  auto collection = [this](const std::string& resource) {
    return [this, resource](const httplib::Request& req, httplib::Response& res) { handle(resource, req, res); };
  };
  for (const char* pattern : {R"(/apis/batch/v1/(?:namespaces/([^/]+)/)?jobs(?:/([^/]+))?)"}) {
    s.Get(pattern, collection("jobs"));
    s.Post(pattern, collection("jobs"));
    s.Delete(pattern, collection("jobs"));
  }
  for (const char* pattern : {R"(/api/v1/(?:namespaces/([^/]+)/)?pods(?:/([^/]+))?)"}) {
    s.Get(pattern, collection("pods"));
    s.Post(pattern, collection("pods"));
    s.Delete(pattern, collection("pods"));
  }
  // Nodes are cluster-scoped (no namespace), and only read.
  s.Get(R"(/api/v1/()nodes(?:/([^/]+))?)", collection("nodes"));
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    bool by_certificate = options_.tls && !options_.tls->client_ca.empty();
    bool open = options_.required_token.empty() && !by_certificate;
    bool token_ok = !options_.required_token.empty() &&
                    req.get_header_value("Authorization") == "Bearer " + options_.required_token;
    bool certificate_ok = by_certificate && req.ssl != nullptr && SSL_get0_peer_certificate(req.ssl) != nullptr &&
                          SSL_get_verify_result(req.ssl) == X509_V_OK;
    if (open || token_ok || certificate_ok) return httplib::Server::HandlerResponse::Unhandled;
    fail(res, 401, "Unauthorized", "Unauthorized");
    return httplib::Server::HandlerResponse::Handled;
  });
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) fail(res, 404, "NotFound", "the server could not find the requested resource (" + req.path + ")");
  });
}

bool FakeApiServer::take_injected_error(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  if (injected_left_ <= 0 || (!injected_method_.empty() && injected_method_ != req.method)) return false;
  --injected_left_;
  ++record_.injected_errors_served;
  if (injected_status_ == 429 && injected_retry_after_ > 0) {
    res.set_header("Retry-After", std::to_string(injected_retry_after_));
  }
  static const std::map<int, std::pair<const char*, const char*>> kReasons = {
      {403, {"Forbidden", "injected: forbidden"}},
      {422, {"Invalid", "injected: invalid"}},
      {429, {"TooManyRequests", "injected: too many requests, please try again later"}},
      {503, {"ServiceUnavailable", "injected: the server is currently unable to handle the request"}}};
  auto it = kReasons.find(injected_status_);
  std::string reason = it != kReasons.end() ? it->second.first : "InternalError";
  std::string message = it != kReasons.end() ? it->second.second
                                             : "injected: an error on the server has prevented the request from succeeding";
  if (echo_headers_) {
    message += "; the request was:\r\n" + req.method + " " + req.path + "\r\n";
    for (const auto& [name, value] : req.headers) message += name + ": " + value + "\r\n";
  }
  fail(res, injected_status_, reason, message);
  return true;
}

// The object with every field the adapter reads of the wrong type or out of any range, its
// name, namespace, labels and resourceVersion kept (so it reaches the code reading its status).
json corrupted(json object) {
  json& meta = object["metadata"];
  meta["annotations"] = json::array({"batch.kubernetes.io/job-completion-index"});
  meta["uid"] = 18446744073709551615ULL;
  meta["deletionTimestamp"] = json::object();
  object["spec"] = {{"completions", "one"}, {"backoffLimit", -1e308}, {"template", 7}};
  object["status"] = {{"phase", 7},
                      {"succeeded", 18446744073709551615ULL},
                      {"failed", "many"},
                      {"active", json::array()},
                      {"ready", 1.5},
                      {"completionTime", 20261202},
                      {"conditions", json::array({5, "Complete", {{"type", 7}, {"status", true}},
                                                  {{"type", "Failed"}, {"status", "Yes"}, {"lastTransitionTime", -1}},
                                                  {{"type", "PodScheduled"}, {"status", "False"}, {"reason", json::object()}}})},
                      {"containerStatuses", json::array({"x", {{"state", {{"terminated", {{"exitCode", 99999999999}}}}}},
                                                         {{"state", {{"terminated", {{"exitCode", "1"}}}}}},
                                                         {{"state", {{"terminated", 7}}}}})}};
  return object;
}

bool FakeApiServer::take_malformed_answer(const std::string& resource, const std::string& ns,
                                          const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  if (!malformed_) return false;
  int shape = record_.malformed_answers++;
  json items = json::array();
  for (const auto& [key, object] : objects_[resource]) {
    if (ns.empty() || ns_of(object) == ns) items.push_back(object);
  }
  json real_list = {{"kind", info(resource).list_kind}, {"apiVersion", info(resource).api_version},
                    {"metadata", {{"resourceVersion", std::to_string(rv_)}}}, {"items", items}};
  json bad_items = json::array();
  for (const json& item : items) bad_items.push_back(corrupted(item));
  std::string w = req.get_param_value("watch");
  std::string body;
  if (w == "true" || w == "1") {
    // One event of the wrong shape per watch, after the corrupted objects as MODIFIED events.
    const std::vector<std::string> wrong = {
        R"({"type": "ADDED", "object": []})", "not json at all", R"({"type": 5, "object": {}})",
        R"({"type": "MODIFIED", "object": {"metadata": {"name": ["x"], "resourceVersion": 7}}})",
        R"({"type": "ERROR", "object": {"code": "410"}})", R"({"type": "DELETED", "object": {"metadata": {"name": "x"}}})",
        R"({"type": "MODIFIED", "obj)",
        // Nested 100,000 deep: would overflow the stack of whatever walks it recursively.
        R"({"type": "MODIFIED", "object": )" + std::string(100'000, '[') + std::string(100'000, ']') + "}"};
    for (const json& item : bad_items) body += json{{"type", "MODIFIED"}, {"object", item}}.dump() + "\n";
    body += wrong[shape % wrong.size()] + "\n";
  } else {
    const std::string real = real_list.dump();
    const std::vector<std::string> wrong = {
        "{}", "[]", R"("a string")", "null", "12345678901234567890123456789",
        R"({"kind": "JobList", "metadata": {"resourceVersion": 5}, "items": {}})",
        R"({"kind": "JobList", "metadata": [], "items": [{"metadata": []}, 7, null]})",
        json{{"kind", "JobList"}, {"metadata", {{"resourceVersion", std::to_string(rv_)}}}, {"items", bad_items}}.dump(),
        "<html><body>502 Bad Gateway</body></html>",
        real.substr(0, real.size() / 2),
        R"({"kind": "JobList", "items": )" + std::string(100'000, '[') + std::string(100'000, ']') + "}"};
    body = wrong[shape % wrong.size()];
  }
  res.status = 200;
  res.set_content(body, "application/json");
  return true;
}

void FakeApiServer::handle(const std::string& resource, const httplib::Request& req, httplib::Response& res) {
  if (options_.forbidden.count(resource) > 0) {
    return fail(res, 403, "Forbidden",
                resource + " is forbidden: User \"system:serviceaccount:default:millrace\" cannot list resource \"" +
                    resource + "\" in API group \"\" at the cluster scope",
                {{"kind", resource}});
  }
  if (take_injected_error(req, res)) return;
  std::string ns = req.matches.size() > 1 ? std::string(req.matches[1]) : "";
  if (take_malformed_answer(resource, ns, req, res)) return;
  std::string name = req.matches.size() > 2 ? std::string(req.matches[2]) : "";
  if (req.method == "POST") {
    if (ns.empty() || !name.empty()) return fail(res, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    return create(resource, ns, req, res);
  }
  if (req.method == "DELETE") {
    if (name.empty()) return fail(res, 405, "MethodNotAllowed", "deletecollection is not supported by this test server");
    return remove(resource, ns, name, req, res);
  }
  if (!name.empty()) {
    std::lock_guard lock(mutex_);
    auto& store = objects_[resource];
    auto it = store.find(key_of(ns, name));
    if (it == store.end()) {
      return fail(res, 404, "NotFound", resource + (resource == "jobs" ? ".batch" : "") + " \"" + name + "\" not found",
                  {{"name", name}, {"group", info(resource).group}, {"kind", resource}});
    }
    return reply(res, 200, it->second);
  }
  std::string w = req.get_param_value("watch");
  if (w == "true" || w == "1") return watch(resource, ns, req, res);
  list(resource, ns, req, res);
}

void FakeApiServer::list(const std::string& resource, const std::string& ns, const httplib::Request& req,
                         httplib::Response& res) {
  auto selector = parse_selector(req.get_param_value("labelSelector"));
  std::string field_name = field_selector_name(req);
  std::lock_guard lock(mutex_);
  ++record_.lists;
  json items = json::array();
  for (const auto& [key, object] : objects_[resource]) {
    if ((ns.empty() || ns_of(object) == ns) && matches(selector, field_name, object)) items.push_back(object);
  }
  const auto& ri = info(resource);
  reply(res, 200, {{"kind", ri.list_kind}, {"apiVersion", ri.api_version},
                   {"metadata", {{"resourceVersion", std::to_string(rv_)}}}, {"items", items}});
}

void FakeApiServer::watch(const std::string& resource, const std::string& ns, const httplib::Request& req,
                          httplib::Response& res) {
  auto state = std::make_shared<WatchState>();
  state->resource = resource;
  state->ns = ns;
  state->selector = parse_selector(req.get_param_value("labelSelector"));
  state->field_name = field_selector_name(req);
  std::string timeout = req.get_param_value("timeoutSeconds");
  state->last_written = steady_now();
  if (!timeout.empty()) state->deadline = steady_now() + std::stoll(timeout) * data::kMicrosPerSecond;
  std::string rv = req.get_param_value("resourceVersion");
  {
    std::lock_guard lock(mutex_);
    ++record_.watches_started;
    state->drop_generation = drop_generation_;
    state->expire_generation = expire_generation_;
    if (expire_next_) {
      expire_next_ = false;
      state->gone = true;
    } else if (rv.empty() || rv == "0") {
      for (const auto& [key, object] : objects_[resource]) {
        if ((ns.empty() || ns_of(object) == ns) && matches(state->selector, state->field_name, object)) {
          state->initial.push_back(object);
        }
      }
      state->sent_rv = rv_;
    } else {
      state->sent_rv = std::stoll(rv);
      state->gone = state->sent_rv + 1 < oldest_watchable_rv_;
    }
  }
  res.status = 200;
  res.set_chunked_content_provider("application/json", [this, state](size_t, httplib::DataSink& sink) {
    auto send = [&](const std::string& type, const json& object) {
      std::string line = json{{"type", type}, {"object", object}}.dump() + "\n";
      return sink.write(line.data(), line.size());
    };
    auto gone = [&] {
      send("ERROR", status_object(410, "Expired", "too old resource version: " + std::to_string(state->sent_rv)));
      sink.done();
      return true;
    };
    if (state->gone) return gone();
    for (const auto& object : state->initial) {
      if (!send("ADDED", object)) return false;
    }
    state->initial.clear();
    std::vector<std::pair<std::string, json>> batch;
    {
      std::unique_lock lock(mutex_);
      changed_.wait_for(lock, std::chrono::milliseconds(50), [&] {
        return stopping_ || drop_generation_ != state->drop_generation ||
               expire_generation_ != state->expire_generation ||
               (!events_.empty() && events_.back().rv > state->sent_rv);
      });
      if (stopping_ || drop_generation_ != state->drop_generation) return false;
      if (expire_generation_ != state->expire_generation) {
        state->gone = true;
      } else {
        for (const auto& e : events_) {
          if (e.rv <= state->sent_rv) continue;
          state->sent_rv = e.rv;
          if (e.resource != state->resource) continue;
          if (!state->ns.empty() && ns_of(e.object) != state->ns) continue;
          if (!matches(state->selector, state->field_name, e.object)) continue;
          batch.emplace_back(e.type, e.object);
        }
      }
    }
    if (state->gone) return gone();
    for (const auto& [type, object] : batch) {
      if (!send(type, object)) return false;
    }
    // A client that went away is noticed only by a write failing (its connection then ends and
    // frees its thread, as the real API server frees a watch whose client closed): a blank line,
    // which a watch client skips, once a second of silence.
    const data::Micros now = steady_now();
    if (!batch.empty()) state->last_written = now;
    if (now - state->last_written >= data::kMicrosPerSecond) {
      if (!sink.write("\n", 1)) return false;
      state->last_written = now;
    }
    if (state->deadline != 0 && now >= state->deadline) sink.done();
    return true;
  });
}

void FakeApiServer::create(const std::string& resource, const std::string& ns, const httplib::Request& req,
                           httplib::Response& res) {
  json object = json::parse(req.body, nullptr, false);
  const auto& ri = info(resource);
  if (!object.is_object()) return fail(res, 400, "BadRequest", "the request body is not a JSON object");
  if (object.value("kind", ri.kind) != ri.kind) {
    return fail(res, 400, "BadRequest", std::string("the body's kind does not match ") + ri.kind);
  }
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  std::lock_guard lock(mutex_);
  std::string name = meta.value("name", "");
  if (name.empty() && meta.contains("generateName")) {
    name = meta["generateName"].get<std::string>() + std::to_string(100000 + ++uid_counter_);
  }
  ++create_requests_[name];
  json causes = json::array();
  if (!valid_dns_label(name)) {
    causes.push_back({{"reason", "FieldValueInvalid"}, {"field", "metadata.name"},
                      {"message", "Invalid value: \"" + name + "\": a lowercase RFC 1123 label of at most 63 characters"}});
  }
  if (resource == "jobs") {
    std::string mode = object["spec"].value("completionMode", "NonIndexed");
    if (mode != "NonIndexed" && mode != "Indexed") {
      causes.push_back({{"reason", "FieldValueNotSupported"}, {"field", "spec.completionMode"},
                        {"message", "Unsupported value: \"" + mode + "\": supported values: \"NonIndexed\", \"Indexed\""}});
    } else if (mode == "Indexed" && !object["spec"].contains("completions")) {
      causes.push_back({{"reason", "FieldValueRequired"}, {"field", "spec.completions"},
                        {"message", "Required value: when completion mode is Indexed"}});
    }
    const json& pod_spec = object["spec"]["template"]["spec"];
    if (!pod_spec.is_object() || pod_spec.value("containers", json::array()).empty()) {
      causes.push_back({{"reason", "FieldValueRequired"}, {"field", "spec.template.spec.containers"}, {"message", "Required value"}});
    } else {
      std::string policy = pod_spec.value("restartPolicy", "Always");
      if (policy != "Never" && policy != "OnFailure") {
        causes.push_back({{"reason", "FieldValueNotSupported"}, {"field", "spec.template.spec.restartPolicy"},
                          {"message", "Unsupported value: \"" + policy + "\": supported values: \"OnFailure\", \"Never\""}});
      }
    }
  }
  if (!causes.empty()) {
    std::string message = std::string(ri.kind) + ".batch \"" + name + "\" is invalid: " + causes[0]["field"].get<std::string>() + ": " + causes[0]["message"].get<std::string>();
    return fail(res, 422, "Invalid", message, {{"name", name}, {"group", ri.group}, {"kind", resource}, {"causes", causes}});
  }
  std::string key = key_of(ns, name);
  if (objects_[resource].count(key)) {
    ++record_.create_conflicts;
    return fail(res, 409, "AlreadyExists", resource + (resource == "jobs" ? ".batch" : "") + " \"" + name + "\" already exists",
                {{"name", name}, {"group", ri.group}, {"kind", resource}});
  }
  object["kind"] = ri.kind;
  object["apiVersion"] = ri.api_version;
  meta["name"] = name;
  meta["namespace"] = ns;
  meta["uid"] = "00000000-0000-4000-8000-" + [&] {
    char hex[13];
    std::snprintf(hex, sizeof hex, "%012llx", static_cast<unsigned long long>(++uid_counter_));
    return std::string(hex);
  }();
  meta["creationTimestamp"] = rfc3339_now();
  meta["generation"] = 1;
  if (resource == "jobs") {
    json& spec = object["spec"];
    if (!spec.contains("completions")) spec["completions"] = 1;
    if (!spec.contains("parallelism")) spec["parallelism"] = 1;
    if (!spec.contains("backoffLimit")) spec["backoffLimit"] = 6;
    std::string uid = meta["uid"];
    spec["selector"] = {{"matchLabels", {{"controller-uid", uid}}}};
    json& labels = spec["template"]["metadata"]["labels"];
    labels["controller-uid"] = uid;
    labels["job-name"] = name;
    object["status"] = json::object();
    ++record_.jobs_created;
  } else {
    object["status"] = {{"phase", "Pending"}};
  }
  put(resource, object, "ADDED");
  reply(res, 201, objects_[resource][key]);
}

void FakeApiServer::remove(const std::string& resource, const std::string& ns, const std::string& name,
                           const httplib::Request& req, httplib::Response& res) {
  std::string policy = req.get_param_value("propagationPolicy");
  json options = json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
  if (options.is_object() && options.contains("propagationPolicy")) policy = options["propagationPolicy"];
  std::lock_guard lock(mutex_);
  auto& store = objects_[resource];
  std::string key = key_of(ns, name);
  auto it = store.find(key);
  const auto& ri = info(resource);
  if (it == store.end()) {
    return fail(res, 404, "NotFound", resource + (resource == "jobs" ? ".batch" : "") + " \"" + name + "\" not found",
                {{"name", name}, {"group", ri.group}, {"kind", resource}});
  }
  json object = it->second;
  if (resource == "pods") {
    record_.pods_deleted.push_back(name);
    erase(resource, key);
    return reply(res, 200, object);
  }
  if (policy.empty()) ++record_.deletes_without_policy;
  if (policy == "Background") {
    std::string uid = object["metadata"]["uid"];
    erase(resource, key);
    for (auto& [pod_key, pod] : objects_["pods"]) {
      for (const auto& owner : pod["metadata"].value("ownerReferences", json::array())) {
        if (owner.value("uid", "") == uid) pod["metadata"]["deletionTimestamp"] = rfc3339_now();
      }
    }
    return reply(res, 200, status_object(200, "", "", {{"name", name}, {"group", ri.group}, {"kind", resource}, {"uid", uid}}));
  }
  // Orphan (the default for Jobs on this API) or Foreground: the object stays, marked with a
  // finalizer, until the garbage collector finishes with its pods on the next step.
  object["metadata"]["deletionTimestamp"] = rfc3339_now();
  object["metadata"]["finalizers"] = {policy == "Foreground" ? "foregroundDeletion" : "orphan"};
  put(resource, object, "MODIFIED");
  reply(res, 200, store[key]);
}

void FakeApiServer::add_node(const std::string& name, const std::string& pool,
                             const std::map<std::string, std::string>& labels) {
  std::lock_guard lock(mutex_);
  json node = {{"kind", "Node"}, {"apiVersion", "v1"},
               {"metadata", {{"name", name}, {"creationTimestamp", rfc3339_now()},
                             {"labels", {{"kubernetes.io/hostname", name}}}}},
               {"status", {{"conditions", {{{"type", "Ready"}, {"status", "False"}, {"reason", "KubeletNotReady"},
                                            {"lastTransitionTime", rfc3339_now()}}}}}}};
  if (!pool.empty()) node["metadata"]["labels"]["cloud.google.com/gke-nodepool"] = pool;
  for (const auto& [label, value] : labels) node["metadata"]["labels"][label] = value;
  put("nodes", std::move(node), "ADDED");
}

void FakeApiServer::delete_node(const std::string& name) {
  std::lock_guard lock(mutex_);
  erase("nodes", key_of("default", name));
}

void FakeApiServer::make_node_ready(const std::string& name) {
  std::lock_guard lock(mutex_);
  json node = objects_["nodes"].at(key_of("default", name));
  node["status"]["conditions"] = {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"},
                                   {"lastTransitionTime", rfc3339_now()}}};
  put("nodes", std::move(node), "MODIFIED");
}

void FakeApiServer::put(const std::string& resource, json object, const std::string& type) {
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  objects_[resource][key_of(ns_of(object), name_of(object))] = object;
  events_.push_back({rv_, resource, type, std::move(object)});
  if (resource == "jobs") note_unfinished();
  changed_.notify_all();
}

void FakeApiServer::erase(const std::string& resource, const std::string& key) {
  auto node = objects_[resource].extract(key);
  json object = std::move(node.mapped());
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  if (resource == "pods") pod_states_.erase(key);
  if (resource == "jobs") {
    job_started_.erase(key);
    job_pods_.erase(key);
  }
  events_.push_back({rv_, resource, "DELETED", std::move(object)});
  changed_.notify_all();
}

void FakeApiServer::note_unfinished() {
  int unfinished = 0;
  for (const auto& [key, job] : objects_["jobs"]) unfinished += is_finished(job) ? 0 : 1;
  record_.max_unfinished_jobs = std::max(record_.max_unfinished_jobs, unfinished);
}

void FakeApiServer::kubelet_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    changed_.wait_for(lock, std::chrono::microseconds(options_.tick));
    if (stopping_) break;
    step(steady_now());
  }
}

void FakeApiServer::finish_job(json& job, bool succeeded, const std::string& reason, const std::string& message) {
  std::string now = rfc3339_now();
  json& status = job["status"];
  status["active"] = 0;
  status["ready"] = 0;
  const char* count = succeeded ? "succeeded" : "failed";
  if (status.value(count, 0) == 0) status[count] = 1;  // a controller that counted pods keeps its count
  if (succeeded) status["completionTime"] = now;
  json condition = {{"type", succeeded ? "Complete" : "Failed"}, {"status", "True"},
                    {"lastProbeTime", now}, {"lastTransitionTime", now}};
  if (!reason.empty()) condition["reason"] = reason;
  if (!message.empty()) condition["message"] = message;
  status["conditions"] = json::array({condition});
}

void FakeApiServer::step(data::Micros now) {
  std::string stamp = rfc3339_now();
  // Garbage collector: finish deletions that wait on finalizers, delete pods marked for it.
  std::vector<std::string> pods_to_delete;
  for (auto& [key, pod] : objects_["pods"]) {
    if (pod["metadata"].contains("deletionTimestamp")) pods_to_delete.push_back(key);
  }
  for (const auto& key : pods_to_delete) erase("pods", key);
  std::vector<std::string> jobs_to_delete;
  for (auto& [key, job] : objects_["jobs"]) {
    if (job["metadata"].contains("finalizers")) jobs_to_delete.push_back(key);
  }
  for (const auto& key : jobs_to_delete) {
    json job = objects_["jobs"][key];
    bool orphan = job["metadata"]["finalizers"][0] == "orphan";
    std::string uid = job["metadata"]["uid"];
    std::vector<std::string> owned;
    for (auto& [pod_key, pod] : objects_["pods"]) {
      for (const auto& owner : pod["metadata"].value("ownerReferences", json::array())) {
        if (owner.value("uid", "") == uid) owned.push_back(pod_key);
      }
    }
    for (const auto& pod_key : owned) {
      if (orphan) {
        json pod = objects_["pods"][pod_key];
        pod["metadata"].erase("ownerReferences");
        ++record_.orphaned_pods;
        put("pods", pod, "MODIFIED");
      } else {
        erase("pods", pod_key);
      }
    }
    erase("jobs", key);
  }

  // Job controller and kubelet.
  std::vector<json> changed_jobs;
  std::vector<std::pair<json, std::string>> changed_pods;
  for (auto& [key, job_ref] : objects_["jobs"]) {
    if (is_finished(job_ref) || job_ref["metadata"].contains("deletionTimestamp")) continue;
    json job = job_ref;
    const json& spec = job["spec"];
    bool indexed = spec.value("completionMode", "NonIndexed") == "Indexed";
    int completions = spec.value("completions", 1);
    JobPods& pods = job_pods_[key];
    bool job_changed = false;
    if (!job["status"].contains("startTime")) {
      job_started_[key] = now;
      job["status"]["startTime"] = stamp;
      if (!indexed) changed_pods.emplace_back(make_pod(job, -1, stamp, now), "ADDED");
      job_changed = true;
    }
    std::set<int> busy;  // indexes with a pod pending or running
    int active = 0, ready = 0;
    for (auto& [index, pod_key] : pods.current) {
      auto pod_it = objects_["pods"].find(pod_key);
      json pod = pod_it != objects_["pods"].end() ? pod_it->second : json();
      for (const auto& [added, type] : changed_pods) {
        if (key_of(ns_of(added), name_of(added)) == pod_key) pod = added;
      }
      if (pod.is_null()) continue;
      if (pod_it != objects_["pods"].end() && step_pod(pod, pod_states_[pod_key], stamp, now)) {
        changed_pods.emplace_back(pod, "MODIFIED");
        std::string phase = pod["status"].value("phase", "");
        if (phase == "Succeeded") pods.succeeded.insert(index);
        pods.failed += phase == "Failed";
      }
      std::string phase = pod["status"].value("phase", "");
      if (phase == "Pending" || phase == "Running") busy.insert(index);
      active += phase == "Pending" || phase == "Running";
      ready += phase == "Running";
    }
    int backoff_limit = spec.value("backoffLimit", 6);
    bool failed = pods.failed > (indexed ? backoff_limit : 0);
    // An Indexed Job runs up to `parallelism` pods, lowest pending index first; an index whose
    // pod failed gets a new one.
    int parallel = std::min(completions, spec.value("parallelism", 1));
    for (int index = 0; indexed && !failed && index < completions && active < parallel; ++index) {
      if (pods.succeeded.count(index) || busy.count(index)) continue;
      changed_pods.emplace_back(make_pod(job, index, stamp, now), "ADDED");
      ++active;
    }
    json& status = job["status"];
    int succeeded = static_cast<int>(pods.succeeded.size());
    if (status.value("active", -1) != active || status.value("ready", -1) != ready ||
        status.value("succeeded", 0) != succeeded || status.value("failed", 0) != pods.failed) {
      status["active"] = active;
      status["ready"] = ready;
      if (succeeded > 0) status["succeeded"] = succeeded;
      if (pods.failed > 0) status["failed"] = pods.failed;
      job_changed = true;
    }
    if (indexed && succeeded > 0) status["completedIndexes"] = index_ranges(pods.succeeded);
    if (succeeded >= completions) {
      finish_job(job, true, "", "");
    } else if (failed) {
      finish_job(job, false, "BackoffLimitExceeded", "Job has reached the specified backoff limit");
    }
    if (!is_finished(job) && spec.contains("activeDeadlineSeconds") && job_started_.count(key)) {
      data::Micros deadline = spec["activeDeadlineSeconds"].get<data::Micros>() * data::kMicrosPerSecond;
      if (now - job_started_[key] >= deadline) {
        finish_job(job, false, "DeadlineExceeded", "Job was active longer than specified deadline");
        for (const auto& [index, pod_key] : pods.current) {
          auto pod_it = objects_["pods"].find(pod_key);
          if (pod_it != objects_["pods"].end()) pod_it->second["metadata"]["deletionTimestamp"] = stamp;
        }
        job_changed = true;
      }
    }
    if (job_changed) changed_jobs.push_back(job);
  }
  for (auto& [pod, type] : changed_pods) put("pods", pod, type);
  for (auto& job : changed_jobs) put("jobs", job, "MODIFIED");
}

json FakeApiServer::make_pod(const json& job, int index, const std::string& stamp, data::Micros now) {
  std::string ns = ns_of(job), name = name_of(job);
  std::string job_key = key_of(ns, name);
  JobPods& pods = job_pods_[job_key];
  int slot = std::max(index, 0);
  std::string pod_name = index < 0 ? name + "-pod" : name + "-" + std::to_string(index) + "-" +
                                                         std::to_string(pods.generation[slot]++);
  json pod = {{"kind", "Pod"}, {"apiVersion", "v1"},
              {"metadata", {{"name", pod_name}, {"namespace", ns},
                            {"labels", job["spec"]["template"]["metadata"].value("labels", json::object())},
                            {"uid", "00000000-0000-4000-9000-" + std::to_string(1000000000000 + ++uid_counter_)},
                            {"creationTimestamp", stamp},
                            {"ownerReferences", {{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"name", name},
                                                  {"uid", job["metadata"]["uid"]}, {"controller", true},
                                                  {"blockOwnerDeletion", true}}}}}},
              {"spec", job["spec"]["template"].value("spec", json::object())},
              {"status", {{"phase", "Pending"}}}};
  pod["metadata"]["labels"]["batch.kubernetes.io/job-name"] = name;
  if (index >= 0) {
    std::string text = std::to_string(index);
    pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] = text;
    pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] = text;
    for (auto& container : pod["spec"]["containers"]) {
      container["env"].push_back({{"name", "JOB_COMPLETION_INDEX"}, {"value", text}});
    }
  }
  PodPlan plan = options_.plan(job);
  if (!plan.unschedulable_message.empty()) {
    pod["status"]["conditions"] = {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"},
                                    {"message", plan.unschedulable_message}, {"lastTransitionTime", stamp}}};
  } else {  // bound to the node at once, as the scheduler does; the container starts after `pending`
    pod["spec"]["nodeName"] = "fake-node";
    pod["status"]["conditions"] = {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", stamp}}};
  }
  std::string pod_key = key_of(ns, pod_name);
  pod_states_[pod_key] = {plan, now};
  pods.current[slot] = pod_key;
  return pod;
}

bool FakeApiServer::step_pod(json& pod, PodState& state, const std::string& stamp, data::Micros now) {
  std::string phase = pod["status"].value("phase", "");
  std::string container = pod["spec"]["containers"][0].value("name", "main");
  if (phase == "Pending" && now - state.since >= state.plan.pending) {
    if (!pod["spec"].contains("nodeName")) {  // bound now, as the scheduler does once a node has room
      pod["status"]["conditions"] = {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", stamp}}};
    }
    pod["spec"]["nodeName"] = "fake-node";
    pod["status"]["phase"] = "Running";
    pod["status"]["startTime"] = stamp;
    pod["status"]["containerStatuses"] = {{{"name", container}, {"ready", true},
                                           {"state", {{"running", {{"startedAt", stamp}}}}}}};
    state.since = now;
    return true;
  }
  if (phase != "Running" || state.plan.running == kUntilEnded || now - state.since < state.plan.running) return false;
  bool ok = state.plan.exit_code == 0;
  pod["status"]["phase"] = ok ? "Succeeded" : "Failed";
  pod["status"]["containerStatuses"][0]["ready"] = false;
  pod["status"]["containerStatuses"][0]["state"] = {
      {"terminated", {{"exitCode", state.plan.exit_code}, {"reason", ok ? "Completed" : "Error"},
                      {"startedAt", pod["status"]["startTime"]}, {"finishedAt", stamp}}}};
  return true;
}

void FakeApiServer::end_pod(const std::string& name, int exit_code) {
  std::lock_guard lock(mutex_);
  for (auto& [key, state] : pod_states_) {
    if (key.substr(key.find('/') + 1) == name && state.plan.running == kUntilEnded) {
      state.plan.running = 0;
      state.plan.exit_code = exit_code;
    }
  }
  changed_.notify_all();
}

}  // namespace millrace::cluster_adapter
