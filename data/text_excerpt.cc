#include "data/text_excerpt.h"

#include <cstdio>

#include "data/error.h"

namespace millrace::data {

namespace {

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::size_t invalid_utf8_at(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > n) return i;
    if (s[i + 1] < low || s[i + 1] > high) return i;
    for (std::size_t k = 2; k < length; ++k) {
      if (!continuation_byte(static_cast<char>(s[i + k]))) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  for (std::size_t at; (at = invalid_utf8_at(text)) != std::string_view::npos; text.remove_prefix(at + 1)) {
    out += text.substr(0, at);
    out += "\uFFFD";
  }
  out += text;
  return out;
}

std::string utf8_problem(std::string_view text) {
  const std::size_t at = invalid_utf8_at(text);
  if (at == std::string_view::npos) return "";
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[at])));
  return "byte " + std::string(byte) + " at column " + std::to_string(at + 1);
}

void require_utf8(std::string_view text, const std::string& what, const std::string& input) {
  const std::string problem = utf8_problem(text);
  if (problem.empty()) return;
  throw Error(input, what + " " + excerpt(valid_utf8(text)) + " is not UTF-8 (" + problem +
                         "): it is kept as text and written to JSON; give it in UTF-8");
}

std::string shortened(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t cut = limit;
  while (cut > 0 && continuation_byte(text[cut])) --cut;  // do not split a multi-byte character
  return std::string(text.substr(0, cut)) + "\u2026";
}

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string quoted(1, '\'');
  quoted += shortened(text, limit);
  quoted += '\'';
  if (text.size() > limit) quoted += " (" + std::to_string(text.size()) + " bytes)";
  return quoted;
}

}  // namespace millrace::data
