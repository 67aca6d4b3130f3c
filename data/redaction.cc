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
  // The credential-named fields: a name that ends a file's path (".../big_token: the token
  // file is ...") is the path of an input, not a field, and what follows it is no value.
  bool field = false;
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
       "$1[redacted]", true},
  };
  return list;
}

// Whether the text at `at` ends a path: the word it is part of (back to a blank, a quote or
// a URL query's '?', '&' or ';', so that `https://host/api?token=...` stays a field) holds a '/'.
bool ends_a_path(const std::string& text, std::size_t at) {
  for (std::size_t i = at; i > 0; --i) {
    const char c = text[i - 1];
    if (c == '/') return true;
    if (std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == '=' || c == ',' || c == '?' ||
        c == '&' || c == ';') {
      return false;
    }
  }
  return false;
}

// `rule` applied to every credential-named field of `text` but those whose name ends a path.
std::string redact_fields(const std::string& text, const Rule& rule) {
  std::string out;
  std::size_t from = 0;
  std::smatch match;
  auto flags = std::regex_constants::match_default;
  while (std::regex_search(text.begin() + static_cast<std::ptrdiff_t>(from), text.end(), match, rule.pattern, flags)) {
    const std::size_t at = from + static_cast<std::size_t>(match.position(0));
    const std::size_t name_end = at + static_cast<std::size_t>(match.length(1));
    const bool path = ends_a_path(text, at);
    out.append(text, from, name_end - from);
    if (!path) out += kRedacted;
    // Past a path and its separator, the rest is looked at again (it may hold a field).
    from = path ? name_end : at + static_cast<std::size_t>(match.length(0));
    flags = std::regex_constants::match_prev_avail;
  }
  out.append(text, from, std::string::npos);
  return out;
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
  for (const Rule& rule : rules()) {
    out = rule.field ? redact_fields(out, rule) : std::regex_replace(out, rule.pattern, rule.replacement);
  }
  return out;
}

namespace {

constexpr std::string_view kKeyBegin = "-----BEGIN ";
constexpr std::string_view kKeyEnd = "-----END ";
constexpr std::size_t kHoldBytes = std::size_t{64} << 10;  // larger than any PEM private key

// Where a private key block opens in `text` with no end after it, or npos.
std::size_t open_private_key(std::string_view text) {
  const std::size_t begin = text.rfind(kKeyBegin);
  if (begin == std::string_view::npos || text.find("PRIVATE KEY-----", begin) == std::string_view::npos) {
    return std::string_view::npos;
  }
  return text.find(kKeyEnd, begin) == std::string_view::npos ? begin : std::string_view::npos;
}

}  // namespace

RedactedStream::RedactedStream(std::ostream& stream) : stream_(stream), original_(stream.rdbuf()) {
  stream_.rdbuf(this);
}

RedactedStream::~RedactedStream() {
  pass_on(true);
  original_->pubsync();
  stream_.rdbuf(original_);
}

RedactedStream::int_type RedactedStream::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  std::lock_guard lock(mutex_);
  const char ch = traits_type::to_char_type(c);
  pending_ += ch;
  if (ch == '\n' || ch == '\r') pass_on(false);
  return c;
}

std::streamsize RedactedStream::xsputn(const char* text, std::streamsize count) {
  const std::string_view added(text, static_cast<std::size_t>(count));
  std::lock_guard lock(mutex_);
  const std::size_t last_end = added.find_last_of("\r\n");
  if (last_end == std::string_view::npos) {
    pending_ += added;
    return count;
  }
  pending_ += added.substr(0, last_end + 1);
  pass_on(false);
  pending_ += added.substr(last_end + 1);
  return count;
}

int RedactedStream::sync() {
  std::lock_guard lock(mutex_);
  pass_on(false);
  return original_->pubsync();
}

void RedactedStream::pass_on(bool at_end) {
  if (pending_.empty()) return;
  // A private key written a line at a time is held until its end line, so that it is masked whole.
  if (!at_end && pending_.size() < kHoldBytes && open_private_key(pending_) != std::string::npos) return;
  std::string shown = redact(pending_);
  pending_.clear();
  if (const std::size_t key = open_private_key(shown); key != std::string::npos) {
    shown.replace(key, std::string::npos, std::string(kRedacted) + "\n");
  }
  original_->sputn(shown.data(), static_cast<std::streamsize>(shown.size()));
}

}  // namespace millrace::data
