// The one redaction layer for everything millrace shows or keeps: error lines on stderr, the
// status server's /status and /metrics, logs, and free text written to the trace store (failure
// reasons, workers). Credentials travel in places millrace does not control (an API server's
// error message may echo the request's headers, a kubeconfig server URL may carry a password),
// so every such sink passes its text through redact() last, and the credentials millrace knows
// (a kubeconfig's token, the lease API's token) are also registered so they are masked wherever
// they appear, whatever surrounds them.
//
// Masked: bearer tokens ("Bearer X"), Authorization / Proxy-Authorization header values, the
// password of a URL's user info (scheme://user:PASSWORD@host), values of fields named like a
// credential (token, password, passwd, secret, api-key, access-key, client-key, ...; as
// `name: value`, `name=value` or JSON `"name": "value"`), PEM private key blocks, and every
// registered secret. Each is replaced by "[redacted]".
#pragma once

#include <string>
#include <string_view>

namespace millrace::data {

inline constexpr const char* kRedacted = "[redacted]";

// `text` with every credential it holds replaced by kRedacted.
std::string redact(std::string_view text);

// From now on, redact() also masks every occurrence of `secret` (ignored when shorter than 4
// characters, which would mask ordinary words). Thread-safe; secrets stay registered for the
// life of the process.
void register_secret(const std::string& secret);

}  // namespace millrace::data
