// The command a local worker runs for one attempt, written as a template whose placeholders
// take the attempt's values. Each value is substituted as one shell word (single-quoted when it
// holds anything beyond [A-Za-z0-9_./:=@%+,-]), so a payload or an id can never inject shell
// syntax. Placeholders, following data::Range (units [first, first + count)):
//   {first}      first unit of the range
//   {count}      number of units
//   {last}       last unit, inclusive (first + count - 1): the END of "END/COUNT"
//   {end}        one past the last unit, exclusive (first + count)
//   {end_count}  "LAST/COUNT", the form parallel catch-up deployments take
//   {id}         the work item's id
//   {attempt}    1-based attempt number
//   {payload}    the item's opaque payload (non-range work)
//   {type}       the item's job type
//   {worker}     the local worker slot running it (local-0, local-1, ...)
// "{{" and "}}" stand for literal braces. Unknown placeholders and unbalanced braces are
// rejected when the template is parsed, and so are {id}, {payload} and {type} (text from outside
// millrace) inside quotes, backticks or after a backslash, where their quoting would not hold:
// the message shows the safe form (cluster_adapter/local/shell_context.h). The numbers and {worker}
// are plain in any quoting; range placeholders on an item without a range are
// rejected when the command is rendered.
#pragma once

#include <string>
#include <vector>

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
  struct Piece {
    bool placeholder = false;
    std::string text;  // literal text, or the placeholder's name
  };
  std::string text_;
  std::vector<Piece> pieces_;
};

}  // namespace millrace::cluster_adapter
