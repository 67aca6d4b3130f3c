#include "cluster_adapter/kubernetes/base64.h"

#include <cctype>

namespace millrace::cluster_adapter {

namespace {

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

std::optional<std::string> base64_decode(const std::string& text) {
  std::string out;
  unsigned bits = 0;
  int held = 0;
  bool padding = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    int value = sextet(c);
    if (value < 0 || padding) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(value);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<char>((bits >> held) & 0xFF));
    }
  }
  if (held >= 6) return std::nullopt;
  return out;
}

}  // namespace millrace::cluster_adapter
