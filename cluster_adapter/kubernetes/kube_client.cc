#include "cluster_adapter/kubernetes/kube_client.h"

#include <curl/curl.h>

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

#include "cluster_adapter/kubernetes/json_fields.h"
#include "data/importers/json_input.h"

namespace millrace::cluster_adapter {

namespace {

constexpr long kStreamPollMillis = 50;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// One configured easy handle with its header list; the body it sends must outlive it.
class Request {
 public:
  Request(const KubeConfig& config, const std::string& method, const std::string& path,
          const std::string& body) {
    global_init();
    curl_ = curl_easy_init();
    url_ = config.server + path;
    curl_easy_setopt(curl_, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method.c_str());
    headers_ = curl_slist_append(headers_, "Accept: application/json");
    headers_ = curl_slist_append(headers_, "User-Agent: millrace");
    if (!body.empty()) {
      headers_ = curl_slist_append(headers_, "Content-Type: application/json");
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    if (!config.token.empty()) {
      std::string auth = "Authorization: Bearer " + config.token;
      headers_ = curl_slist_append(headers_, auth.c_str());
    }
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    set_pem(config.certificate_authority, CURLOPT_CAINFO, CURLOPT_CAINFO_BLOB);
    set_pem(config.client_certificate, CURLOPT_SSLCERT, CURLOPT_SSLCERT_BLOB);
    set_pem(config.client_key, CURLOPT_SSLKEY, CURLOPT_SSLKEY_BLOB);
    if (config.insecure_skip_tls_verify) {
      curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, &Request::on_header);
    curl_easy_setopt(curl_, CURLOPT_HEADERDATA, this);
    curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, error_);
  }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request() {
    curl_slist_free_all(headers_);
    curl_easy_cleanup(curl_);
  }

  CURL* handle() const { return curl_; }
  const std::string& url() const { return url_; }
  // libcurl's detailed message of the last failure ("SSL certificate problem: ...").
  std::string error_detail() const { return error_; }
  std::optional<data::Micros> retry_after() const { return retry_after_; }
  int status() const {
    long code = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &code);
    return static_cast<int>(code);
  }

 private:
  void set_pem(const PemSource& source, CURLoption file_option, CURLoption blob_option) {
    if (!source.data.empty()) {
      curl_blob blob{const_cast<char*>(source.data.data()), source.data.size(), CURL_BLOB_COPY};
      curl_easy_setopt(curl_, blob_option, &blob);
    } else if (!source.file.empty()) {
      curl_easy_setopt(curl_, file_option, source.file.c_str());
    }
  }

  static size_t on_header(char* data, size_t size, size_t count, void* self) {
    std::string_view line(data, size * count);
    constexpr std::string_view kName = "retry-after:";
    if (line.size() > kName.size()) {
      bool match = true;
      for (size_t i = 0; i < kName.size() && match; ++i) {
        match = std::tolower(static_cast<unsigned char>(line[i])) == kName[i];
      }
      if (match) {
        try {
          long seconds = std::stol(std::string(line.substr(kName.size())));
          static_cast<Request*>(self)->retry_after_ = seconds * data::kMicrosPerSecond;
        } catch (const std::exception&) {
          // An HTTP-date Retry-After: the exponential backoff applies instead.
        }
      }
    }
    return size * count;
  }

  CURL* curl_ = nullptr;
  curl_slist* headers_ = nullptr;
  std::string url_;
  std::optional<data::Micros> retry_after_;
  char error_[CURL_ERROR_SIZE] = {};
};

size_t append_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// Splits a 200 stream into lines for the caller; anything else is kept as the error body.
struct StreamSink {
  Request* request;
  const std::function<void(std::string_view)>* on_line;
  std::string pending;
  std::string error_body;
  std::exception_ptr failure;

  static size_t write(char* data, size_t size, size_t count, void* self_ptr) {
    auto* self = static_cast<StreamSink*>(self_ptr);
    size_t n = size * count;
    if (self->request->status() != 200) {
      self->error_body.append(data, n);
      return n;
    }
    self->pending.append(data, n);
    try {
      size_t start = 0;
      for (size_t nl; (nl = self->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        if (nl > start) (*self->on_line)(std::string_view(self->pending).substr(start, nl - start));
      }
      self->pending.erase(0, start);
    } catch (...) {
      self->failure = std::current_exception();
      return 0;
    }
    return n;
  }
};

// No response came: a connection or TLS failure. TLS failures that no retry can mend (a server
// certificate the configured CA did not sign, an unusable client certificate, an unreadable CA
// file) say which kubeconfig setting to check and are not retried.
KubeApiError no_response(const KubeConfig& config, const Request& request, CURLcode code) {
  std::string detail = request.error_detail();
  std::string problem = curl_easy_strerror(code);
  if (!detail.empty()) problem += " (" + detail + ")";
  std::string origin = config.origin.empty() ? "the configuration" : config.origin;
  std::string check;
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
      check = "the server's certificate is not trusted by the configured certificate authority; check the "
              "cluster's certificate-authority / certificate-authority-data in ";
      break;
    case CURLE_SSL_CERTPROBLEM:
      check = "the client certificate or key cannot be used; check the user's client-certificate(-data) and "
              "client-key(-data) in ";
      break;
    case CURLE_SSL_CACERT_BADFILE:
      check = "the certificate authority cannot be read; check the cluster's certificate-authority in ";
      break;
    default:
      return KubeApiError(request.url(), 0, "", problem);
  }
  return KubeApiError(request.url(), 0, std::string(KubeApiError::kTlsReason), check + origin + ": " + problem);
}

}  // namespace

bool sleep_unless_stopped(data::Micros delay, std::stop_token stop) {
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  return !wake.wait_for(lock, stop, std::chrono::microseconds(delay), [] { return false; }) &&
         !stop.stop_requested();
}

KubeClient::KubeClient(KubeConfig config, BackoffPolicy backoff, data::Micros request_timeout)
    : config_(std::move(config)), backoff_(backoff), request_timeout_(request_timeout) {}

HttpResponse KubeClient::send(const std::string& method, const std::string& path,
                              const std::string& body) const {
  Request request(config_, method, path, body);
  HttpResponse response;
  curl_easy_setopt(request.handle(), CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout_ / data::kMicrosPerMilli));
  curl_easy_setopt(request.handle(), CURLOPT_WRITEFUNCTION, &append_body);
  curl_easy_setopt(request.handle(), CURLOPT_WRITEDATA, &response.body);
  CURLcode code = curl_easy_perform(request.handle());
  if (code != CURLE_OK) throw no_response(config_, request, code);
  response.status = request.status();
  response.retry_after = request.retry_after();
  return response;
}

KubeApiError KubeClient::error_from(const std::string& path, const HttpResponse& response) const {
  constexpr std::size_t kExcerpt = 500;  // of a body that is no Status object
  std::string reason;
  std::string message = response.body.size() > kExcerpt ? response.body.substr(0, kExcerpt) + "..." : response.body;
  auto status = data::importers::parse_json_or_discarded(response.body);
  if (text_field(status, "kind") == "Status") {
    reason = text_field(status, "reason");
    message = text_field(status, "message");
  }
  return KubeApiError(config_.server + path, response.status, reason, message, response.retry_after);
}

nlohmann::json KubeClient::call(const std::string& method, const std::string& path,
                                const std::optional<nlohmann::json>& body, std::stop_token stop,
                                const RetryObserver& on_retry,
                                const std::function<void(const nlohmann::json&)>& check) const {
  std::string text = body ? body->dump() : std::string();
  Backoff backoff(backoff_);
  for (;;) {
    if (stop.stop_requested()) throw KubeApiError(config_.server + path, 0, "Stopped", "stop requested");
    std::optional<KubeApiError> failure;
    try {
      HttpResponse response = send(method, path, text);
      if (response.status >= 200 && response.status < 300) {
        auto parsed = data::importers::parse_json_or_discarded(response.body);
        if (!parsed.is_object()) {
          throw KubeApiError(config_.server + path, response.status, KubeApiError::kMalformedReason,
                             std::string(parsed.is_discarded() ? "answer is not JSON" : "answer is not a JSON object") +
                                 ": " + response.body.substr(0, 200));
        }
        if (check) check(parsed);
        return parsed;
      }
      failure = error_from(path, response);
    } catch (const KubeApiError& e) {
      failure = e;
    }
    if (!failure->retryable()) throw *failure;
    data::Micros delay = backoff.next_delay(failure->retry_after());
    if (backoff.exhausted()) throw *failure;
    if (on_retry) on_retry(*failure, delay);
    if (!sleep_unless_stopped(delay, stop)) throw KubeApiError(config_.server + path, 0, "Stopped", "stop requested");
  }
}

std::vector<nlohmann::json> KubeClient::list(const std::string& path, std::string& resource_version,
                                             std::stop_token stop, const RetryObserver& on_retry) const {
  std::vector<nlohmann::json> items;
  call("GET", path, std::nullopt, stop, on_retry, [&](const nlohmann::json& answer) {
    items = kube_list_items(answer, config_.server + path, resource_version);
  });
  return items;
}

int KubeClient::stream(const std::string& path, const std::function<void(std::string_view)>& on_line,
                       std::stop_token stop, std::string* error_body, const std::function<void()>& on_open) const {
  Request request(config_, "GET", path, "");
  StreamSink sink{&request, &on_line, {}, {}, {}};
  curl_easy_setopt(request.handle(), CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request_timeout_ / data::kMicrosPerMilli));
  curl_easy_setopt(request.handle(), CURLOPT_WRITEFUNCTION, &StreamSink::write);
  curl_easy_setopt(request.handle(), CURLOPT_WRITEDATA, &sink);
  std::unique_ptr<CURLM, decltype(&curl_multi_cleanup)> multi(curl_multi_init(), &curl_multi_cleanup);
  curl_multi_add_handle(multi.get(), request.handle());
  int running = 1;
  CURLcode result = CURLE_OK;
  bool opened = false;
  while (running) {
    curl_multi_perform(multi.get(), &running);
    if (!opened && request.status() == 200) {
      opened = true;
      if (on_open) on_open();
    }
    if (!running) break;
    if (stop.stop_requested()) {
      curl_multi_remove_handle(multi.get(), request.handle());
      return -1;
    }
    curl_multi_poll(multi.get(), nullptr, 0, kStreamPollMillis, nullptr);
  }
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(multi.get(), &queued)) {
    if (message->msg == CURLMSG_DONE) result = message->data.result;
  }
  curl_multi_remove_handle(multi.get(), request.handle());
  if (sink.failure) std::rethrow_exception(sink.failure);
  int status = request.status();
  if (status == 0) throw no_response(config_, request, result);
  if (error_body) *error_body = sink.error_body;
  return status;
}

std::string KubeClient::query_escape(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace millrace::cluster_adapter
