// A small input read whole: a ranges file or a cost profile, whose parsers look back at earlier
// lines (a JSON record's line, a gap's neighbour). It is read through the streaming TextInput, so
// it gets the same treatment of text as every importer (byte order mark, CRLF, UTF-8 checked per
// line, "empty file"), and then keeps its lines; meant for inputs of at most a few MB.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace millrace::data::importers {

class WholeText {
 public:
  // Throws Error naming `path` (and the line) as TextInput does.
  static WholeText read(const std::string& path);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }  // the lines joined by '\n'
  std::size_t line_count() const { return line_starts_.size(); }
  std::string_view line(std::size_t number) const;  // 1-based
  std::string where(std::size_t number) const { return name_ + ":" + std::to_string(number); }

 private:
  std::string name_;
  std::string text_;
  std::vector<std::size_t> line_starts_;  // offset in text_ of each line
};

}  // namespace millrace::data::importers
