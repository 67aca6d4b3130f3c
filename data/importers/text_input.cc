#include "data/importers/text_input.h"

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <system_error>

#include "data/error.h"
#include "data/importers/read_progress.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 16;
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

TextInput::TextInput(const std::string& path)
    : name_(path), file_(gzopen(path.c_str(), "rb"), gzclose_r), buffer_(kBufferBytes) {
  if (!file_) throw Error(path, "cannot open for reading");
  std::error_code unknown;
  const std::uintmax_t size = std::filesystem::file_size(path, unknown);
  size_ = unknown ? 0 : static_cast<std::int64_t>(size);
  while (end_ - begin_ < kByteOrderMark.size() && fill()) {
  }
  if (std::string_view(buffer_.data() + begin_, end_ - begin_).substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    begin_ += kByteOrderMark.size();
  }
}

bool TextInput::fill() {
  if (exhausted_) return false;
  if (begin_ == end_) {
    begin_ = end_ = 0;
  } else if (end_ == buffer_.size()) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  const int n = gzread(file_.get(), buffer_.data() + end_, static_cast<unsigned>(buffer_.size() - end_));
  ScopedReadProgress::tell(gzoffset(file_.get()), size_);
  int code = Z_OK;
  const char* message = gzerror(file_.get(), &code);
  if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
    throw Error(name_, std::string("truncated or corrupt file (") + message + ") after line " +
                           std::to_string(line_number_));
  }
  if (n == 0) {
    exhausted_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(n);
  return true;
}

bool TextInput::next_line() { return next_line_until({}); }

void TextInput::start_line() {
  while (rest_open_) next_line_byte();
  pending_.clear();
  cut_off_ = false;
}

bool TextInput::next_line_until(std::string_view marker) {
  start_line();
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const std::size_t available = end_ - begin_;
    const void* newline = std::memchr(start, '\n', available);
    const std::size_t length = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - start) : available;
    if (!marker.empty()) {
      // The marker may straddle the previous chunk: look from where it could begin.
      const std::size_t from = pending_.size() >= marker.size() ? pending_.size() - marker.size() + 1 : 0;
      pending_.append(start, length);
      begin_ += length;
      if (const std::size_t at = pending_.find(marker, from); at != std::string::npos) {
        rest_head_.assign(pending_, at);
        pending_.resize(at);
        line_ = pending_;
        rest_open_ = true;
        rest_read_ = 0;
        break;
      }
      if (newline) {
        ++begin_;
        line_ = pending_;
        break;
      }
    } else if (newline) {
      if (pending_.empty()) {
        line_ = std::string_view(start, length);
      } else {
        pending_.append(start, length);
        line_ = pending_;
      }
      begin_ += length + 1;
      break;
    } else {
      pending_.append(start, available);
      begin_ = end_;
    }
    if (pending_.size() > kMaxLineBytes) {
      throw Error(where(line_number_ + 1), "line longer than " + std::to_string(kMaxLineBytes >> 20) + " MiB");
    }
    if (!fill()) {
      if (pending_.empty()) {
        if (!seen_content_) throw Error(name_, "empty file");
        return false;
      }
      line_ = pending_;
      cut_off_ = true;
      break;
    }
  }
  ++line_number_;
  if (rest_open_) {
    column_ = line_.size();
    seen_content_ = true;  // the marker is not blank
  } else if (!line_.empty() && line_.back() == '\r') {
    line_.remove_suffix(1);
  }
  check_utf8();
  note_content(line_);
  return true;
}

int TextInput::next_line_byte() {
  if (!rest_open_) return -1;
  char c = 0;
  if (rest_read_ < rest_head_.size()) {
    c = rest_head_[rest_read_++];
  } else if (begin_ == end_ && !fill()) {
    rest_open_ = false;
    cut_off_ = true;
    return -1;
  } else {
    c = buffer_[begin_++];
    if (c == '\n') {
      rest_open_ = false;
      return -1;
    }
  }
  ++column_;
  return static_cast<unsigned char>(c);
}

void TextInput::check_utf8() const {
  const std::string problem = utf8_problem(line_);
  if (problem.empty()) return;
  throw Error(where(), "not UTF-8: " + problem + " (convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8)");
}

void TextInput::note_content(std::string_view text) {
  if (!seen_content_) {
    for (char c : text) {
      if (!is_space(c)) {
        seen_content_ = true;
        break;
      }
    }
  }
}

std::string TextInput::field_count_problem(std::size_t got, std::size_t expected) const {
  std::string counts = std::to_string(got) + " fields, expected " + std::to_string(expected);
  if (cut_off_) return "truncated file: the last line has " + counts;
  return "bad field count: " + counts;
}

int TextInput::next_byte() {
  if (begin_ == end_ && !fill()) {
    if (!seen_content_) throw Error(name_, "empty file");
    return -1;
  }
  if (line_number_ == 0 || after_newline_) {
    ++line_number_;
    column_ = 0;
  }
  const char c = buffer_[begin_++];
  ++column_;
  after_newline_ = c == '\n';
  if (!seen_content_ && !is_space(c)) seen_content_ = true;
  return static_cast<unsigned char>(c);
}

}  // namespace millrace::data::importers
