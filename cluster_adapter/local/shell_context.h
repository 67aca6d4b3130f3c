// Where a word inserted into POSIX shell text would land, read character by character: bare, in
// single or double quotes, inside backticks, or right after an escaping backslash. A value
// millrace single-quotes is one literal word only when it lands bare (possibly inside a `$(...)`,
// whose contents the shell reads afresh): inside double quotes its single quotes are literal
// characters and `$(...)` or backticks in it run; inside single quotes its own quotes end the
// quoting; inside backticks a backtick in it ends the substitution; after a backslash its
// opening quote is escaped. Here-documents are followed too (`<<WORD`, `<<-WORD`, `<<'WORD'`,
// `<<"WORD"`; not bash's `<<<` here-strings): a word inserted into one's body (or its delimiter)
// lands in text the shell expands when the delimiter is unquoted ($(...) in the value runs), and
// that a command reads as its input (often a shell) when it is quoted: no quoting holds there.
// Enough of sh's grammar for that, not a parser: comments and `case` patterns are not followed.
#pragma once

#include <string>
#include <vector>

namespace millrace::cluster_adapter {

class ShellContext {
 public:
  enum class Place { kBare, kSingleQuotes, kDoubleQuotes, kBackticks, kAfterBackslash, kHeredoc };

  // The next literal character of the text.
  void feed(char c);
  // A word was inserted at the current place: it escapes nothing that follows.
  void inserted();

  // Where a word inserted now would land.
  Place place() const;
  // Whether the quotes around the current place were opened by the last character fed.
  bool quote_just_opened() const { return just_opened_; }
  // The here-document the current place is in, as its operator was written ("<<EOF",
  // "<<-'END'"); empty unless place() is kHeredoc.
  const std::string& heredoc() const { return heredoc_operator_; }

 private:
  struct Heredoc {
    std::string delimiter;  // quotes removed
    std::string written;    // the operator and the word as written
    bool strip_tabs = false;  // <<-: leading tabs of the body's lines are dropped
  };
  enum class HeredocWord { kNone, kOperator, kWord };
  // Reads the delimiter word after "<<"; false when `c` is not part of it (fed as usual then).
  bool feed_heredoc_word(char c);
  // The next character of a here-document's body.
  void feed_heredoc_body(char c);

  std::vector<Heredoc> pending_;  // here-documents opened on the current line, bodies to come
  HeredocWord reading_ = HeredocWord::kNone;
  Heredoc word_;          // the one being read
  char word_quote_ = 0;   // a quote open in the delimiter word
  bool in_body_ = false;  // reading pending_.front()'s body
  std::string body_line_;
  std::string heredoc_operator_;  // of the here-document being read (its word or its body)
  int less_than_run_ = 0;         // consecutive '<' just fed

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
