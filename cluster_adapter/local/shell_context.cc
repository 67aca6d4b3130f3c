#include "cluster_adapter/local/shell_context.h"

#include <algorithm>

namespace millrace::cluster_adapter {

void ShellContext::feed(char c) {
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
  escaped_ = false;
  dollar_ = false;
  just_opened_ = false;
}

ShellContext::Place ShellContext::place() const {
  if (escaped_) return Place::kAfterBackslash;
  if (std::any_of(frames_.begin(), frames_.end(), [](const Frame& f) { return f.backticks; })) {
    return Place::kBackticks;
  }
  if (frames_.back().quote == '\'') return Place::kSingleQuotes;
  if (frames_.back().quote == '"') return Place::kDoubleQuotes;
  return Place::kBare;
}

}  // namespace millrace::cluster_adapter
