#include "cluster_adapter/realtime/placeholder_text.h"

#include <algorithm>

#include "data/error.h"

namespace millrace::cluster_adapter {

std::vector<TextPiece> parse_placeholders(const std::string& text, const std::string& input,
                                          std::span<const std::string_view> known) {
  std::vector<TextPiece> pieces;
  std::string literal;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      literal += c;
      ++i;
    } else if (c == '}') {
      throw data::Error(input, "unmatched '}' at offset " + std::to_string(i) + " (write '}}' for a brace)");
    } else if (c == '{') {
      const std::size_t close = text.find('}', i);
      if (close == std::string::npos) {
        throw data::Error(input, "unclosed '{' at offset " + std::to_string(i) + " (write '{{' for a brace)");
      }
      std::string name = text.substr(i + 1, close - i - 1);
      if (!known.empty() && std::find(known.begin(), known.end(), name) == known.end()) {
        std::string names;
        for (std::string_view k : known) names += (names.empty() ? "" : ", ") + std::string(k);
        throw data::Error(input, "unknown placeholder {" + name + "} (known: " + names + ")");
      }
      if (!literal.empty()) pieces.push_back(TextPiece{false, std::move(literal)});
      literal.clear();
      pieces.push_back(TextPiece{true, std::move(name)});
      i = close;
    } else {
      literal += c;
    }
  }
  if (!literal.empty()) pieces.push_back(TextPiece{false, std::move(literal)});
  return pieces;
}

std::string fill_placeholders(const std::vector<TextPiece>& pieces,
                              const std::function<std::string(const std::string& name)>& value) {
  std::string out;
  for (const TextPiece& piece : pieces) out += piece.placeholder ? value(piece.text) : piece.text;
  return out;
}

}  // namespace millrace::cluster_adapter
