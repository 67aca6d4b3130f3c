#include "cluster_adapter/local/shell_context.h"

#include <algorithm>
#include <string_view>

namespace millrace::cluster_adapter {

bool ShellContext::feed_heredoc_word(char c) {
  if (reading_ == HeredocWord::kOperator) {
    if (c == '<') {  // "<<<": a here-string, not a here-document
      reading_ = HeredocWord::kNone;
      heredoc_operator_.clear();
      return true;
    }
    if (c == '-' && !word_.strip_tabs && word_.written == "<<") {
      word_.strip_tabs = true;
      word_.written += c;
      return true;
    }
    if (c == ' ' || c == '\t') return true;
    reading_ = HeredocWord::kWord;
  }
  const bool ends_word = word_quote_ == 0 && std::string_view(" \t\n;&|<>()").find(c) != std::string_view::npos;
  if (!ends_word) {
    word_.written += c;
    heredoc_operator_ = word_.written;
    if (word_quote_ == 0 && (c == '\'' || c == '"')) {
      word_quote_ = c;
    } else if (c == word_quote_) {
      word_quote_ = 0;
    } else if (c != '\\' || word_quote_ != 0) {
      word_.delimiter += c;
    }
    return true;
  }
  pending_.push_back(word_);
  reading_ = HeredocWord::kNone;
  heredoc_operator_.clear();
  return false;
}

void ShellContext::feed_heredoc_body(char c) {
  if (c != '\n') {
    body_line_ += c;
    return;
  }
  const Heredoc& body = pending_.front();
  std::string_view line = body_line_;
  if (body.strip_tabs) line.remove_prefix(std::min(line.find_first_not_of('\t'), line.size()));
  if (line == body.delimiter) {
    pending_.erase(pending_.begin());
    in_body_ = !pending_.empty();
    heredoc_operator_ = in_body_ ? pending_.front().written : "";
  }
  body_line_.clear();
}

void ShellContext::feed(char c) {
  if (in_body_) return feed_heredoc_body(c);
  if (reading_ != HeredocWord::kNone && feed_heredoc_word(c)) return;
  less_than_run_ = c == '<' && frames_.back().quote == 0 && !escaped_ ? less_than_run_ + 1 : 0;
  if (less_than_run_ == 2) {
    reading_ = HeredocWord::kOperator;
    word_ = Heredoc{"", "<<", false};
    heredoc_operator_ = word_.written;
    word_quote_ = 0;
    less_than_run_ = 0;
  }
  if (c == '\n' && !pending_.empty() && !escaped_ && frames_.back().quote == 0) {
    in_body_ = true;
    body_line_.clear();
    heredoc_operator_ = pending_.front().written;
  }
  Frame& frame = frames_.back();
  const bool after_dollar = dollar_;
  dollar_ = false;
  just_opened_ = false;
  if (escaped_) {
    escaped_ = false;
    return;
  }
  if (frame.quote == '\'') {
    if (c == '\'') frame.quote = 0;
    return;
  }
  switch (c) {
    case '\\':
      escaped_ = true;
      break;
    case '"':
    case '\'':
      if (frame.quote == c) {
        frame.quote = 0;
      } else if (frame.quote == 0) {
        frame.quote = c;
        just_opened_ = true;
      }
      break;
    case '$':
      dollar_ = true;
      break;
    case '(':
      if (after_dollar) {
        frames_.push_back(Frame{});
      } else if (frame.quote == 0) {
        ++frame.parens;
      }
      break;
    case ')':
      if (frame.quote != 0) break;
      if (frame.parens > 0) {
        --frame.parens;
      } else if (frames_.size() > 1 && !frame.backticks) {
        frames_.pop_back();
      }
      break;
    case '`':
      if (frame.backticks) {
        frames_.pop_back();
      } else {
        frames_.push_back(Frame{true});
      }
      break;
    default:
      break;
  }
}

void ShellContext::inserted() {
  if (in_body_) body_line_ += '\0';  // a line holding a value is no delimiter line
  if (reading_ != HeredocWord::kNone) {
    reading_ = HeredocWord::kWord;
    word_.delimiter += '\0';  // a delimiter holding a value matches no line
  }
  less_than_run_ = 0;
  escaped_ = false;
  dollar_ = false;
  just_opened_ = false;
}

ShellContext::Place ShellContext::place() const {
  if (in_body_ || reading_ != HeredocWord::kNone) return Place::kHeredoc;
  if (escaped_) return Place::kAfterBackslash;
  if (std::any_of(frames_.begin(), frames_.end(), [](const Frame& f) { return f.backticks; })) {
    return Place::kBackticks;
  }
  if (frames_.back().quote == '\'') return Place::kSingleQuotes;
  if (frames_.back().quote == '"') return Place::kDoubleQuotes;
  return Place::kBare;
}

}  // namespace millrace::cluster_adapter
