// One input file of an importer, read as a stream (gunzipped on the fly when compressed) so
// that memory does not grow with the file, and the one place where every importer gets the
// same treatment of text:
// - a UTF-8 byte order mark at the start is skipped, CRLF line ends are accepted;
// - the text must be UTF-8: an invalid byte (a Latin-1 'é' in an SWF header) is an Error naming
//   file:line, the column and the byte, never a parser's raw exception;
// - a file holding only whitespace is "empty file"; gzip data cut short is "truncated or
//   corrupt"; a line over kMaxLineBytes is refused rather than read into memory;
// - every error names the file and the 1-based line ("trace.csv:17: negative duration_s '-3'"),
//   quoting input only through data/text_excerpt.h.
// Line formats read with next_line(); a JSON document reads bytes (next_byte, json_input.h); a
// line that carries a JSON document after some text (a log line quoting a server's answer) is
// read with next_line_until(marker) and then its rest byte by byte (next_line_byte), so the
// document, however long, is never held whole. As it reads, it tells the import's read progress
// (read_progress.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct gzFile_s;

namespace millrace::data::importers {

inline constexpr std::size_t kMaxLineBytes = std::size_t{256} << 20;

class TextInput {
 public:
  // Opens `path` (plain text or gzip). Throws Error(path, ...) when it cannot be opened.
  explicit TextInput(const std::string& path);

  const std::string& name() const { return name_; }

  // Reads the next line (without its line end, and without a byte order mark on line 1);
  // false after the last one. Throws Error(name) "empty file" at the end of a file that held
  // only whitespace, and Error(where()) on a line that is not UTF-8 or too long.
  bool next_line();
  std::string_view line() const { return line_; }
  // The number of the line last read (byte reading: of the byte last read), 1-based.
  std::size_t line_number() const { return line_number_; }
  // "file:N" for the line last read, the prefix of every error about it.
  std::string where() const { return where(line_number_); }
  std::string where(std::size_t number) const { return name_ + ":" + std::to_string(number); }
  // True when the line last read is the file's last and does not end in a newline: a line
  // that is malformed there is reported as a truncated file.
  bool cut_off() const { return cut_off_; }
  // Like next_line(), but when the line holds `marker`, line() is only the text before it and the
  // rest of the line (from the marker on) is left for next_line_byte(); a reader that does not
  // want it just reads on (the next read skips it). rest_open() tells which happened.
  bool next_line_until(std::string_view marker);
  bool rest_open() const { return rest_open_; }
  // The next byte of the rest of the line left by next_line_until, or -1 at its end (the line
  // end, which is consumed; cut_off() then tells whether the file ended without one).
  // column() follows.
  int next_line_byte();

  // The reason for the last line read having `got` fields where `expected` belong.
  std::string field_count_problem(std::size_t got, std::size_t expected) const;

  // Byte reading, for documents that span lines: the next byte, or -1 at the end (which throws
  // "empty file" when only whitespace came before). line_number() and column() follow.
  int next_byte();
  std::size_t column() const { return column_; }  // 1-based column of the byte last read
  bool at_end() const { return exhausted_ && begin_ == end_; }

 private:
  bool fill();  // reads more into the buffer; false at the end of the file
  void start_line();  // skips what is left of a line next_line_until split
  void check_utf8() const;
  void note_content(std::string_view text);

  std::string name_;
  std::unique_ptr<gzFile_s, int (*)(gzFile_s*)> file_;
  std::int64_t size_ = 0;  // of the file as stored, for read progress (read_progress.h); 0: unknown
  std::vector<char> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool exhausted_ = false;
  std::string pending_;  // a line that spans buffer refills
  std::string rest_head_;  // the rest of a split line already taken from the buffer (marker on)
  std::size_t rest_read_ = 0;
  bool rest_open_ = false;
  std::string_view line_;
  std::size_t line_number_ = 0;
  std::size_t column_ = 0;
  bool cut_off_ = false;
  bool after_newline_ = false;
  bool seen_content_ = false;
};

}  // namespace millrace::data::importers
