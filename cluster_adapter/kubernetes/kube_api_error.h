// A failed Kubernetes API call: the HTTP status (0 when no response came: connection refused,
// timeout, TLS failure) with the reason and message of the Status object the server sent, so
// callers can tell AlreadyExists from NotFound from Gone without parsing text.
#pragma once

#include <optional>
#include <string>

#include "data/error.h"
#include "data/time.h"

namespace millrace::cluster_adapter {

class KubeApiError : public data::Error {
 public:
  // The reason of a TLS failure no retry can mend (an untrusted server certificate, an unusable
  // client certificate): a configuration to fix, not an outage.
  static constexpr const char* kTlsReason = "TLS";
  // The reason of an answer of the wrong shape (not JSON, not the object asked for): the
  // server's fault, retried like an outage.
  static constexpr const char* kMalformedReason = "Malformed";

  KubeApiError(std::string url, int status, std::string reason, std::string message,
               std::optional<data::Micros> retry_after = std::nullopt)
      : data::Error(std::move(url), describe(status, reason, message)),
        status_(status), reason_(std::move(reason)), message_(std::move(message)),
        retry_after_(retry_after) {}

  int status() const { return status_; }
  const std::string& reason() const { return reason_; }     // Status.reason, e.g. "AlreadyExists"
  const std::string& message() const { return message_; }   // Status.message
  std::optional<data::Micros> retry_after() const { return retry_after_; }
  // Worth trying again: no response (but for a TLS configuration failure), 429 Too Many
  // Requests, a 5xx server error, or a malformed answer.
  bool retryable() const {
    return (status_ == 0 && reason_ != kTlsReason) || status_ == 429 || status_ >= 500 || reason_ == kMalformedReason;
  }

 private:
  static std::string describe(int status, const std::string& reason, const std::string& message) {
    std::string head = status == 0 ? "no response" : "HTTP " + std::to_string(status);
    if (!reason.empty()) head += status == 0 ? " (" + reason + ")" : " " + reason;
    return message.empty() ? head : head + ": " + message;
  }

  int status_;
  std::string reason_;
  std::string message_;
  std::optional<data::Micros> retry_after_;
};

}  // namespace millrace::cluster_adapter
