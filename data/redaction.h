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
//
// The process's own output goes through RedactedStream: installed on std::cout and std::cerr
// by the CLI's main, it redacts every line written to them, whoever writes it (a watch's retry
// log, a store backlog's warning, a library's error echoed by a command), so no output path
// can bypass this layer by forgetting to call redact().
#pragma once

#include <mutex>
#include <ostream>
#include <streambuf>
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

// While alive, everything written to `stream` passes through redact() a line at a time (a line
// ends at '\n' or '\r', so a progress line redrawn in place still shows at once); a flush
// passes on a partial line. A private key block is held until its end line (up to 64 KiB), so
// it is masked whole. Restores the stream's own buffer, after passing on what is left,
// when destroyed. Thread-safe.
class RedactedStream : private std::streambuf {
 public:
  explicit RedactedStream(std::ostream& stream);
  RedactedStream(const RedactedStream&) = delete;
  RedactedStream& operator=(const RedactedStream&) = delete;
  ~RedactedStream() override;

 private:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;
  int sync() override;
  // Writes the pending text, redacted, to the original buffer (at_end: also an unfinished key).
  void pass_on(bool at_end);

  std::ostream& stream_;
  std::streambuf* original_;
  std::mutex mutex_;  // threads share std::cerr
  std::string pending_;
};

}  // namespace millrace::data
