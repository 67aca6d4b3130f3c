// Text with {name} placeholders, the syntax every real cluster's templates share (the local
// command template, the commands and args of a Kubernetes Job template): "{{" and "}}" stand
// for literal braces, any other brace opens or closes a placeholder. Parsed once into pieces;
// what a placeholder may be called and what it stands for is the caller's.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace millrace::cluster_adapter {

struct TextPiece {
  bool placeholder = false;
  std::string text;  // literal text (braces unescaped), or the placeholder's name
};

// Splits `text` into literal text and placeholders. Throws data::Error naming `input` on a stray
// brace (with its offset) or, unless `known` is empty, on a name not in `known` (listing them).
std::vector<TextPiece> parse_placeholders(const std::string& text, const std::string& input,
                                          std::span<const std::string_view> known);

// The pieces with each placeholder replaced by `value(name)`.
std::string fill_placeholders(const std::vector<TextPiece>& pieces,
                              const std::function<std::string(const std::string& name)>& value);

}  // namespace millrace::cluster_adapter
