// One input file of an importer, read whole (gunzipped on the fly when compressed) and split
// into lines, so that every importer reports a malformed line the same way: the file name, the
// 1-based line number and the reason ("trace.csv:17: negative duration_s '-3'").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace millrace::data::importers {

class TextInput {
 public:
  // Reads `path` (plain text or gzip). Throws Error(path, ...) when it cannot be read, when
  // compressed data is truncated or corrupt, or when the file is empty.
  static TextInput read(const std::string& path);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  std::size_t line_count() const { return lines_.size(); }
  std::string_view line(std::size_t number) const { return lines_.at(number - 1); }  // 1-based
  // "file:N", the prefix of every error about line N.
  std::string where(std::size_t number) const { return name_ + ":" + std::to_string(number); }
  // True for the last line of a file that does not end in a newline: a line that is malformed
  // there is reported as a truncated file.
  bool cut_off(std::size_t number) const;
  // The reason for a line with `got` fields where `expected` belong: the last line of a file
  // that does not end in a newline is reported as a truncated file.
  std::string field_count_problem(std::size_t number, std::size_t got, std::size_t expected) const;

 private:
  TextInput(std::string name, std::string text);
  std::string name_;
  std::string text_;
  std::vector<std::string_view> lines_;
};

}  // namespace millrace::data::importers
