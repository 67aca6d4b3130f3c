// The command a local worker runs for one attempt, written as a template whose placeholders
// take the attempt's values. Each value is substituted as one shell word (single-quoted when it
// holds anything beyond [A-Za-z0-9_./:=@%+,-]), so a payload or an id can never inject shell
// syntax. Placeholders: the attempt's values ({first} {count} {last} {end} {end_count} {id}
// {attempt} {payload} {type}, realtime/attempt_values.h) and {worker}, the local worker slot
// running it (local-0, local-1, ...), in the syntax of realtime/placeholder_text.h.
// "{{" and "}}" stand for literal braces. Unknown placeholders and unbalanced braces are
// rejected when the template is parsed, and so are {id}, {payload} and {type} (text from outside
// millrace) inside quotes, backticks or after a backslash, where their quoting would not hold:
// the message shows the safe form (cluster_adapter/local/shell_context.h); inside a here-document
// (its body or its delimiter), where no quoting holds, they are refused naming the
// here-document, with no safe form to offer. The numbers and {worker}
// are plain in any quoting; range placeholders on an item without a range are
// rejected when the command is rendered.
#pragma once

#include <string>
#include <vector>

#include "cluster_adapter/realtime/placeholder_text.h"
#include "data/records.h"

namespace millrace::cluster_adapter {

// Quotes `value` as a single POSIX shell word (unchanged when it needs no quoting).
std::string shell_quote(const std::string& value);

class CommandTemplate {
 public:
  // Throws data::Error naming the template on an unknown placeholder or a stray brace.
  explicit CommandTemplate(std::string text);

  // The shell command line for one attempt of `item`, run by `worker`.
  std::string render(const data::WorkItem& item, int attempt, const std::string& worker) const;

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<TextPiece> pieces_;
};

}  // namespace millrace::cluster_adapter
