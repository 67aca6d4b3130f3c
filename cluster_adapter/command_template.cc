#include "cluster_adapter/command_template.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

constexpr std::array<std::string_view, 10> kPlaceholders = {
    "first", "count", "last", "end", "end_count", "id", "attempt", "payload", "type", "worker"};

bool is_range_placeholder(const std::string& name) {
  return name == "first" || name == "count" || name == "last" || name == "end" || name == "end_count";
}

bool needs_quoting(const std::string& value) {
  if (value.empty()) return true;
  return !std::all_of(value.begin(), value.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_./:=@%+,-").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

}  // namespace

std::string shell_quote(const std::string& value) {
  if (!needs_quoting(value)) return value;
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

CommandTemplate::CommandTemplate(std::string text) : text_(std::move(text)) {
  const std::string input = "command template '" + text_ + "'";
  std::string literal;
  for (std::size_t i = 0; i < text_.size(); ++i) {
    char c = text_[i];
    if ((c == '{' || c == '}') && i + 1 < text_.size() && text_[i + 1] == c) {
      literal += c;
      ++i;
    } else if (c == '}') {
      throw data::Error(input, "unmatched '}' at offset " + std::to_string(i) + " (write '}}' for a brace)");
    } else if (c == '{') {
      std::size_t close = text_.find('}', i);
      if (close == std::string::npos) {
        throw data::Error(input, "unclosed '{' at offset " + std::to_string(i) + " (write '{{' for a brace)");
      }
      std::string name = text_.substr(i + 1, close - i - 1);
      if (std::find(kPlaceholders.begin(), kPlaceholders.end(), name) == kPlaceholders.end()) {
        throw data::Error(input, "unknown placeholder {" + name +
                                     "} (known: first, count, last, end, end_count, id, attempt, payload, "
                                     "type, worker)");
      }
      if (!literal.empty()) pieces_.push_back(Piece{false, std::move(literal)});
      literal.clear();
      pieces_.push_back(Piece{true, std::move(name)});
      i = close;
    } else {
      literal += c;
    }
  }
  if (!literal.empty()) pieces_.push_back(Piece{false, std::move(literal)});
}

std::string CommandTemplate::render(const data::WorkItem& item, int attempt, const std::string& worker) const {
  std::string command;
  for (const Piece& piece : pieces_) {
    if (!piece.placeholder) {
      command += piece.text;
      continue;
    }
    const std::string& name = piece.text;
    if (is_range_placeholder(name) && !item.range) {
      throw data::Error("work item '" + item.id + "'",
                        "has no range but command template '" + text_ + "' uses {" + name + "}");
    }
    std::string value;
    if (name == "first") value = std::to_string(item.range->first);
    else if (name == "count") value = std::to_string(item.range->count);
    else if (name == "last") value = std::to_string(item.range->last());
    else if (name == "end") value = std::to_string(item.range->end());
    else if (name == "end_count") value = item.range->end_count();
    else if (name == "id") value = item.id;
    else if (name == "attempt") value = std::to_string(attempt);
    else if (name == "payload") value = item.payload;
    else if (name == "type") value = item.type;
    else value = worker;
    command += shell_quote(value);
  }
  return command;
}

}  // namespace millrace::cluster_adapter
