#include "cluster_adapter/local/command_template.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "cluster_adapter/local/shell_context.h"
#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

constexpr std::array<std::string_view, 10> kPlaceholders = {
    "first", "count", "last", "end", "end_count", "id", "attempt", "payload", "type", "worker"};

bool is_range_placeholder(const std::string& name) {
  return name == "first" || name == "count" || name == "last" || name == "end" || name == "end_count";
}

// Values from outside millrace (ids, payloads and types come from plans and imported traces);
// the others are numbers or millrace's own worker names, plain in any quoting.
bool is_free_text(const std::string& name) { return name == "id" || name == "payload" || name == "type"; }

bool needs_quoting(const std::string& value) {
  if (value.empty()) return true;
  return !std::all_of(value.begin(), value.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_./:=@%+,-").find(static_cast<char>(c)) != std::string_view::npos;
  });
}


// Why a value substituted at `place` would not be one literal shell word, and what to do (empty
// when it would be).
std::string unsafe_placement(const std::string& name, ShellContext::Place place) {
  const std::string placeholder = "{" + name + "}";
  switch (place) {
    case ShellContext::Place::kBare:
      return "";
    case ShellContext::Place::kSingleQuotes:
    case ShellContext::Place::kDoubleQuotes:
      return placeholder + " is inside " +
             (place == ShellContext::Place::kSingleQuotes ? "single" : "double") +
             " quotes, where the quoting millrace gives each value does not hold (a value holding a quote, "
             "$(...) or a backtick would run as shell code); leave placeholders unquoted, millrace makes each "
             "value one shell word: ";
    case ShellContext::Place::kBackticks:
      return placeholder + " is inside backticks, where a backtick in the value ends the command substitution "
                           "and the rest runs as shell code; use $(...) instead of `...`, with the placeholders "
                           "unquoted: ";
    case ShellContext::Place::kAfterBackslash:
      return placeholder + " follows a backslash, which escapes the quote millrace opens the value with; drop "
                           "the backslash: ";
  }
  return "";
}

// The template with every placeholder taken out of the quotes around it: the quotes are closed
// before it and reopened after, and quotes left empty are dropped ("{id}" -> {id},
// "a {id} b" -> "a "{id}" b"); a backslash before a placeholder is dropped.
class SafeForm {
 public:
  // Raw template text for one literal character; `closes_quotes` when that character ends the
  // quotes a placeholder was taken out of.
  void add(std::string_view raw, bool closes_quotes) {
    const char reopen = reopen_;
    reopen_ = 0;
    if (reopen != 0 && closes_quotes) return;  // quotes reopened only to be closed: neither
    if (reopen != 0) text_ += reopen;
    text_ += raw;
  }
  void placeholder(const std::string& name, ShellContext::Place place, bool quote_just_opened) {
    const char quote = place == ShellContext::Place::kSingleQuotes   ? '\''
                       : place == ShellContext::Place::kDoubleQuotes ? '"'
                                                                     : 0;
    if (place == ShellContext::Place::kAfterBackslash) text_.pop_back();
    if (quote != 0 && reopen_ == 0) {
      if (quote_just_opened) {
        text_.pop_back();
      } else {
        text_ += quote;
      }
    }
    text_ += "{" + name + "}";
    reopen_ = quote;
  }
  std::string finish() {
    if (reopen_ != 0) text_ += reopen_;
    reopen_ = 0;
    return text_;
  }

 private:
  std::string text_;
  char reopen_ = 0;  // the quote to reopen before the next character, unless it closes them
};

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
  ShellContext shell;
  SafeForm safe;
  std::string unsafe;  // why the first placeholder that cannot be quoted safely cannot
  std::string in_backticks;  // a placeholder inside backticks, which the safe form keeps
  std::string literal;
  auto add_literal = [&](char c, std::string_view raw) {
    const ShellContext::Place before = shell.place();
    shell.feed(c);
    const bool closes_quotes = (before == ShellContext::Place::kDoubleQuotes && c == '"') ||
                               (before == ShellContext::Place::kSingleQuotes && c == '\'');
    safe.add(raw, closes_quotes && shell.place() == ShellContext::Place::kBare);
    literal += c;
  };
  for (std::size_t i = 0; i < text_.size(); ++i) {
    char c = text_[i];
    if ((c == '{' || c == '}') && i + 1 < text_.size() && text_[i + 1] == c) {
      add_literal(c, std::string_view(text_).substr(i, 2));
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
      if (!is_free_text(name)) {
        safe.add(std::string_view(text_).substr(i, close - i + 1), false);
      } else {
        if (unsafe.empty()) unsafe = unsafe_placement(name, shell.place());
        if (shell.place() == ShellContext::Place::kBackticks && in_backticks.empty()) in_backticks = "{" + name + "}";
        safe.placeholder(name, shell.place(), shell.quote_just_opened());
      }
      shell.inserted();
      if (!literal.empty()) pieces_.push_back(Piece{false, std::move(literal)});
      literal.clear();
      pieces_.push_back(Piece{true, std::move(name)});
      i = close;
    } else {
      add_literal(c, std::string_view(text_).substr(i, 1));
    }
  }
  if (!literal.empty()) pieces_.push_back(Piece{false, std::move(literal)});
  if (unsafe.empty()) return;
  const bool backticks_first = unsafe.starts_with(in_backticks + " is inside backticks");
  const std::string also = in_backticks.empty() || backticks_first
                               ? ""
                               : " (and " + in_backticks + " is inside backticks: use $(...) instead of `...`)";
  throw data::Error(input, unsafe + safe.finish() + also);
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
