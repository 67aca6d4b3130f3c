#include "data/importers/text_input.h"

#include <zlib.h>

#include <array>
#include <memory>

#include "data/error.h"

namespace millrace::data::importers {

TextInput TextInput::read(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> in(gzopen(path.c_str(), "rb"), gzclose_r);
  if (!in) throw Error(path, "cannot open for reading");
  std::string text;
  std::array<char, 1 << 16> buffer{};
  for (;;) {
    int n = gzread(in.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
    int code = Z_OK;
    const char* message = gzerror(in.get(), &code);
    if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
      throw Error(path, std::string("truncated or corrupt file (") + message + ")");
    }
    if (n == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw Error(path, "empty file");
  return TextInput(path, std::move(text));
}

TextInput::TextInput(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
  std::string_view rest = text_;
  while (!rest.empty()) {
    std::size_t newline = rest.find('\n');
    std::string_view line = rest.substr(0, newline);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines_.push_back(line);
    if (newline == std::string_view::npos) break;
    rest.remove_prefix(newline + 1);
  }
}

bool TextInput::cut_off(std::size_t number) const { return number == lines_.size() && text_.back() != '\n'; }

std::string TextInput::field_count_problem(std::size_t number, std::size_t got, std::size_t expected) const {
  std::string counts = std::to_string(got) + " fields, expected " + std::to_string(expected);
  if (cut_off(number)) return "truncated file: the last line has " + counts;
  return "bad field count: " + counts;
}

}  // namespace millrace::data::importers
