#include "data/importers/json_lines.h"

#include <algorithm>
#include <iterator>

#include "data/error.h"

namespace millrace::data::importers {

namespace {

// A char iterator that tells a shared cursor how far the JSON parser has read, so that the
// parser's callback knows the line it is on.
class TrackingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator(const char* at, const char** cursor) : at_(at), cursor_(cursor) {}
  reference operator*() const { return *at_; }
  TrackingIterator& operator++() {
    *cursor_ = ++at_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackingIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** cursor_;
};

// The line of the byte at `offset` (clamped to the text).
std::size_t line_at(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

}  // namespace

JsonWithLines parse_json_with_lines(const WholeText& input, const std::string& list_key) {
  using Event = nlohmann::json::parse_event_t;
  const std::string& text = input.text();
  const char* cursor = text.data();
  JsonWithLines out;
  bool in_list = false;
  bool list_key_seen = false;
  int element_depth = 0;
  // The callback runs right after the parser has read the token that opens a value (a number
  // also its following character), so the last byte read lies on the value's line.
  auto track = [&](int depth, Event event, nlohmann::json& parsed) {
    const auto read = static_cast<std::size_t>(cursor - text.data());
    if (event == Event::key && depth == 1) list_key_seen = parsed == list_key;
    if (in_list && depth == element_depth &&
        (event == Event::object_start || event == Event::array_start || event == Event::value)) {
      out.element_lines.push_back(line_at(text, read == 0 ? 0 : read - 1));
    } else if (!in_list && event == Event::array_start && (depth == 0 || (depth == 1 && list_key_seen))) {
      in_list = true;
      element_depth = depth + 1;
    } else if (in_list && event == Event::array_end && depth == element_depth - 1) {
      in_list = false;
    }
    return true;
  };
  try {
    out.doc = nlohmann::json::parse(TrackingIterator(text.data(), &cursor),
                                    TrackingIterator(text.data() + text.size(), &cursor), track);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(input.where(line_at(text, e.byte == 0 ? 0 : e.byte - 1)),
                std::string(e.byte >= text.size() ? "truncated file: " : "malformed JSON: ") + e.what());
  }
  return out;
}

bool looks_like_json(const WholeText& input) {
  const std::size_t start = input.text().find_first_not_of(" \t\r\n");
  return start != std::string::npos && (input.text()[start] == '[' || input.text()[start] == '{');
}

}  // namespace millrace::data::importers
