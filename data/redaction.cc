#include "data/redaction.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <regex>
#include <vector>

namespace millrace::data {

namespace {

std::mutex& secrets_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::string>& secrets() {
  static std::vector<std::string> list;
  return list;
}

struct Rule {
  std::regex pattern;
  const char* replacement;
};

// Ordered: a whole header value first, then what is left of a bearer token, URL passwords and
// credential-named fields.
const std::vector<Rule>& rules() {
  static const auto flags = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;
  static const std::vector<Rule> list = {
      {std::regex(R"(-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)", flags),
       "[redacted]"},
      {std::regex(R"(((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token|digest)\s+)?[^\s"'\\,;]+)",
                  flags),
       "$1[redacted]"},
      {std::regex(R"((bearer\s+)[^\s"'\\,;]+)", flags), "$1[redacted]"},
      {std::regex(R"(([a-z][a-z0-9+.\-]*://[^/\s:@"']*):[^/\s@"']*@)", flags), "$1:[redacted]@"},
      {std::regex(R"(((?:[a-z0-9]+[_-])*(?:token|password|passwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?key(?:[_-]data)?)["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"'\\,;&]+)",
                  flags),
       "$1[redacted]"},
  };
  return list;
}

bool contains_ignoring_case(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != text.end();
}

// Whether any rule can match: most texts hold none of these words and skip the regexes.
bool may_hold_credentials(std::string_view text) {
  for (std::string_view word : {"auth", "bearer", "://", "token", "pass", "secret", "key"}) {
    if (contains_ignoring_case(text, word)) return true;
  }
  return false;
}

}  // namespace

void register_secret(const std::string& secret) {
  if (secret.size() < 4) return;
  std::lock_guard lock(secrets_mutex());
  if (std::find(secrets().begin(), secrets().end(), secret) == secrets().end()) secrets().push_back(secret);
}

std::string redact(std::string_view text) {
  std::string out(text);
  {
    std::lock_guard lock(secrets_mutex());
    for (const std::string& secret : secrets()) {
      for (std::size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + 1)) {
        out.replace(at, secret.size(), kRedacted);
      }
    }
  }
  if (!may_hold_credentials(out)) return out;
  for (const Rule& rule : rules()) out = std::regex_replace(out, rule.pattern, rule.replacement);
  return out;
}

}  // namespace millrace::data
