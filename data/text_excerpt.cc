#include "data/text_excerpt.h"

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
