#include "cluster_adapter/local/command_template.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "cluster_adapter/local/shell_context.h"
#include "cluster_adapter/realtime/attempt_values.h"
#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

// The attempt's values (realtime/attempt_values.h) and the local worker slot running it.
constexpr std::array<std::string_view, 10> kPlaceholders = {
    "first", "count", "last", "end", "end_count", "id", "attempt", "payload", "type", "worker"};

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
    case ShellContext::Place::kHeredoc:
      return "";  // heredoc_refusal: no safe form in place
  }
  return "";
}

// Why a value cannot go into the here-document `heredoc` ("<<EOF") at all.
std::string heredoc_refusal(const std::string& name, const std::string& heredoc) {
  return "{" + name + "} is inside the here-document " + heredoc +
         ", where no quoting holds: the shell expands $(...) and backticks in the value when the delimiter is "
         "unquoted, and a quoted one hands the value as text to the command reading it (often a shell); pass it "
         "outside the here-document, as an argument (sh -s -- {" +
         name + "} " + heredoc + " ... reads it as \"$1\")";
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
  auto add_literal = [&](char c, std::string_view raw) {
    const ShellContext::Place before = shell.place();
    shell.feed(c);
    const bool closes_quotes = (before == ShellContext::Place::kDoubleQuotes && c == '"') ||
                               (before == ShellContext::Place::kSingleQuotes && c == '\'');
    safe.add(raw, closes_quotes && shell.place() == ShellContext::Place::kBare);
  };
  pieces_ = parse_placeholders(text_, input, kPlaceholders);
  for (const TextPiece& piece : pieces_) {
    if (!piece.placeholder) {
      // A literal brace was written doubled.
      for (char c : piece.text) add_literal(c, c == '{' || c == '}' ? std::string(2, c) : std::string(1, c));
      continue;
    }
    const std::string& name = piece.text;
    if (is_free_text(name) && shell.place() == ShellContext::Place::kHeredoc) {
      throw data::Error(input, heredoc_refusal(name, shell.heredoc()));
    }
    if (!is_free_text(name)) {
      safe.add("{" + name + "}", false);
    } else {
      if (unsafe.empty()) unsafe = unsafe_placement(name, shell.place());
      if (shell.place() == ShellContext::Place::kBackticks && in_backticks.empty()) in_backticks = "{" + name + "}";
      safe.placeholder(name, shell.place(), shell.quote_just_opened());
    }
    shell.inserted();
  }
  if (unsafe.empty()) return;
  const bool backticks_first = unsafe.starts_with(in_backticks + " is inside backticks");
  const std::string also = in_backticks.empty() || backticks_first
                               ? ""
                               : " (and " + in_backticks + " is inside backticks: use $(...) instead of `...`)";
  throw data::Error(input, unsafe + safe.finish() + also);
}

std::string CommandTemplate::render(const data::WorkItem& item, int attempt, const std::string& worker) const {
  const std::vector<AttemptValue> values = attempt_values(item, attempt);
  return fill_placeholders(pieces_, [&](const std::string& name) {
    if (name == "worker") return shell_quote(worker);
    for (const AttemptValue& value : values) {
      if (value.name == name) return shell_quote(value.text);
    }
    throw data::Error("work item '" + item.id + "'",
                      "has no range but command template '" + text_ + "' uses {" + name + "}");
  });
}

}  // namespace millrace::cluster_adapter
