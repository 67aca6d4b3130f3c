#include "cluster_adapter/kubernetes/worker_pool/lease_client.h"

#include <curl/curl.h>

#include <mutex>

namespace millrace::cluster_adapter {

namespace {

// Longer than any lease request waits for work (LeaseTerms::wait) and than a large bundle takes.
constexpr long kTimeoutSeconds = 300;
constexpr long kConnectSeconds = 10;

struct Sink {
  std::string body;
  std::size_t max = 0;
  bool cut = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  Sink& sink = *static_cast<Sink*>(user);
  const std::size_t bytes = size * count;
  if (sink.body.size() + bytes > sink.max) {
    sink.cut = true;
    return 0;  // libcurl stops the transfer
  }
  sink.body.append(data, bytes);
  return bytes;
}

}  // namespace

LeaseClient::LeaseClient(std::string url, std::string token) : url_(std::move(url)), token_(std::move(token)) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

LeaseAnswer LeaseClient::post(const std::string& path, const std::string& json_body, std::size_t max_bytes) const {
  return call(path, &json_body, max_bytes);
}

LeaseAnswer LeaseClient::get(const std::string& path, std::size_t max_bytes) const {
  return call(path, nullptr, max_bytes);
}

LeaseAnswer LeaseClient::call(const std::string& path, const std::string* json_body, std::size_t max_bytes) const {
  LeaseAnswer answer;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    answer.error = "libcurl could not start a request";
    return answer;
  }
  const std::string url = url_ + path;
  Sink sink;
  sink.max = max_bytes;
  char error[CURL_ERROR_SIZE] = {};
  curl_slist* headers = curl_slist_append(nullptr, "User-Agent: millrace sweep-worker");
  const std::string auth = "Authorization: Bearer " + token_;
  if (!token_.empty()) headers = curl_slist_append(headers, auth.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, kTimeoutSeconds);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, kConnectSeconds);
  if (json_body != nullptr) {
    headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json_body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(json_body->size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  const CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
    answer.body = std::move(sink.body);
  } else if (sink.cut) {
    answer.error = path + ": the answer is over " + std::to_string(max_bytes) + " bytes";
  } else {
    answer.error = path + ": " + (error[0] != 0 ? std::string(error) : curl_easy_strerror(code));
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return answer;
}

}  // namespace millrace::cluster_adapter
