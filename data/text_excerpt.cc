#include "data/text_excerpt.h"

namespace millrace::data {

namespace {

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

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
