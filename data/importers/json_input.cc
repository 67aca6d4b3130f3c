#include "data/importers/json_input.h"

#include <iterator>
#include <set>
#include <vector>

#include "data/error.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

namespace {

// The bytes of a TextInput (to the end of the file, or of the line) as the input iterator
// nlohmann reads from; the default-constructed one is the end. The iterator holds the byte after
// the last one nlohmann took, so it notes in `taken_line` the line of the one taken.
class InputBytes {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  InputBytes() = default;
  InputBytes(TextInput& input, JsonExtent extent, std::size_t& taken_line)
      : input_(&input), extent_(extent), taken_line_(&taken_line) {
    advance();
  }

  reference operator*() const { return current_; }
  InputBytes& operator++() {
    advance();
    return *this;
  }
  InputBytes operator++(int) {
    InputBytes before = *this;
    advance();
    return before;
  }
  friend bool operator==(const InputBytes& a, const InputBytes& b) { return a.done() == b.done(); }

 private:
  bool done() const { return input_ == nullptr; }
  void advance() {
    *taken_line_ = current_line_;
    const int c = extent_ == JsonExtent::kRestOfFile ? input_->next_byte() : input_->next_line_byte();
    if (c < 0) {
      input_ = nullptr;
    } else {
      current_ = static_cast<char>(c);
      current_line_ = input_->line_number();
      if (!depth_.take(current_)) {
        throw Error(input_->where(), "malformed JSON: column " + std::to_string(input_->column()) + ": " + too_deep());
      }
    }
  }

  TextInput* input_ = nullptr;
  JsonExtent extent_ = JsonExtent::kRestOfFile;
  std::size_t* taken_line_ = nullptr;
  char current_ = 0;
  std::size_t current_line_ = 0;
  JsonDepth depth_;
};

constexpr std::size_t kMessageLimit = 200;

// nlohmann's message without its "[json.exception.x.N] parse error at line L, column C: "
// prefix (the position is given by the caller), bounded in length.
std::string problem_of(const nlohmann::json::exception& e) {
  std::string_view text = e.what();
  if (std::size_t bracket = text.find("] "); bracket != std::string_view::npos) text.remove_prefix(bracket + 2);
  if (text.rfind("parse error", 0) == 0) {
    if (std::size_t colon = text.find(": "); colon != std::string_view::npos) text.remove_prefix(colon + 2);
  }
  return shortened(text, kMessageLimit);
}

std::string kind_of(const nlohmann::json::exception& e, bool at_end) {
  if (dynamic_cast<const nlohmann::json::out_of_range*>(&e) != nullptr) return "number out of range: ";
  if (at_end) return "truncated file: ";
  return "malformed JSON: ";
}

// Whether the document was cut short by the end of the file (rather than malformed).
bool ended_early(const TextInput& input, JsonExtent extent) {
  return extent == JsonExtent::kRestOfFile ? input.at_end() : input.cut_off() && !input.rest_open();
}

// parse_json, noting in `taken_line` the line of the last byte the parser took.
nlohmann::json parse_json_noting(TextInput& input, JsonExtent extent, const nlohmann::json::parser_callback_t& keep,
                                 std::size_t& taken_line) {
  try {
    return nlohmann::json::parse(InputBytes(input, extent, taken_line), InputBytes(), keep);
  } catch (const nlohmann::json::exception& e) {
    throw Error(input.where(), kind_of(e, ended_early(input, extent)) + "column " + std::to_string(input.column()) +
                                   ": " + problem_of(e));
  }
}

}  // namespace

bool JsonDepth::take(char c) {
  if (in_string_) {
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
    }
    return true;
  }
  switch (c) {
    case '"':
      in_string_ = true;
      return true;
    case '[':
    case '{':
      return ++depth_ <= kMaxJsonDepth;
    case ']':
    case '}':
      --depth_;
      return true;
    default:
      return true;
  }
}

std::string too_deep() { return "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"; }

std::string json_excerpt(const nlohmann::json& value) {
  if (value.is_array()) return "an array of " + std::to_string(value.size());
  if (value.is_object()) return "an object of " + std::to_string(value.size()) + " fields";
  return excerpt(value.dump());
}

nlohmann::json parse_json_text(std::string_view text, const std::string& what) {
  JsonDepth depth;
  for (char c : text) {
    if (!depth.take(c)) throw Error(what, "malformed JSON: " + too_deep());
  }
  using Event = nlohmann::json::parse_event_t;
  std::vector<std::set<std::string>> keys_of_open_objects;
  const auto refuse_repeated_keys = [&](int, Event event, nlohmann::json& parsed) {
    if (event == Event::object_start) keys_of_open_objects.emplace_back();
    if (event == Event::object_end) keys_of_open_objects.pop_back();
    if (event == Event::key && !keys_of_open_objects.back().insert(parsed.get<std::string>()).second) {
      throw Error(what, "malformed JSON: the key " + excerpt(parsed.get<std::string>()) + " is given twice");
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, refuse_repeated_keys);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what, "malformed JSON: " + problem_of(e));
  }
}

nlohmann::json parse_json_or_discarded(std::string_view text) {
  JsonDepth depth;
  for (char c : text) {
    if (!depth.take(c)) return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  return nlohmann::json::parse(text, nullptr, false);
}

nlohmann::json parse_json(TextInput& input, JsonExtent extent, const nlohmann::json::parser_callback_t& keep) {
  std::size_t taken_line = 0;
  return parse_json_noting(input, extent, keep, taken_line);
}

nlohmann::json parse_json_list(TextInput& input, const std::string& list_key, const JsonElementFn& on_element,
                               JsonExtent extent) {
  using Event = nlohmann::json::parse_event_t;
  bool in_list = false;
  bool list_key_seen = false;
  int element_depth = 0;
  std::string element_where;
  std::size_t taken_line = 0;
  // nlohmann calls back right after taking the token that opens a value (a number also the
  // character after it, on the same line: a newline counts on the line it ends), so the line
  // of the last byte taken is the line the element starts on.
  const auto keep = [&](int depth, Event event, nlohmann::json& parsed) {
    if (!in_list) {
      if (event == Event::key && depth == 1) list_key_seen = parsed == list_key;
      if (event == Event::array_start && (depth == 0 || (depth == 1 && list_key_seen))) {
        in_list = true;
        element_depth = depth + 1;
      }
      return true;
    }
    if (depth == element_depth - 1 && event == Event::array_end) {
      in_list = false;
      return true;
    }
    if (depth != element_depth) return true;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        element_where = input.where(taken_line);
        return true;
      case Event::object_end:
      case Event::array_end:
        on_element(parsed, element_where);
        return false;
      case Event::value:
        on_element(parsed, input.where(taken_line));
        return false;
      default:
        return true;
    }
  };
  return parse_json_noting(input, extent, keep, taken_line);
}

bool looks_like_json(const std::string& path) {
  TextInput input(path);
  int c = input.next_byte();
  while (c == ' ' || c == '\t' || c == '\r' || c == '\n') c = input.next_byte();
  return c == '[' || c == '{';
}

}  // namespace millrace::data::importers
