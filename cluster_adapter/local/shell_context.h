// Where a word inserted into POSIX shell text would land, read character by character: bare, in
// single or double quotes, inside backticks, or right after an escaping backslash. A value
// millrace single-quotes is one literal word only when it lands bare (possibly inside a `$(...)`,
// whose contents the shell reads afresh): inside double quotes its single quotes are literal
// characters and `$(...)` or backticks in it run; inside single quotes its own quotes end the
// quoting; inside backticks a backtick in it ends the substitution; after a backslash its
// opening quote is escaped. Enough of sh's grammar for that, not a parser: comments, here
// documents and `case` patterns are not followed.
#pragma once

#include <vector>

namespace millrace::cluster_adapter {

class ShellContext {
 public:
  enum class Place { kBare, kSingleQuotes, kDoubleQuotes, kBackticks, kAfterBackslash };

  // The next literal character of the text.
  void feed(char c);
  // A word was inserted at the current place: it escapes nothing that follows.
  void inserted();

  // Where a word inserted now would land.
  Place place() const;
  // Whether the quotes around the current place were opened by the last character fed.
  bool quote_just_opened() const { return just_opened_; }

 private:
  struct Frame {
    bool backticks = false;  // opened by '`' (else the text itself, or a "$(")
    char quote = 0;          // '\'', '"' or 0
    int parens = 0;          // unmatched '(' inside this frame
  };
  std::vector<Frame> frames_{Frame{}};
  bool escaped_ = false;
  bool dollar_ = false;
  bool just_opened_ = false;
};

}  // namespace millrace::cluster_adapter
