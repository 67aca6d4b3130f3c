#include "data/importers/json_input.h"

#include <iterator>

#include "data/error.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

namespace {

// The bytes of a TextInput as the input iterator nlohmann reads from; the default-constructed
// one is the end.
class InputBytes {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  InputBytes() = default;
  explicit InputBytes(TextInput& input) : input_(&input) { advance(); }

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
    const int c = input_->next_byte();
    if (c < 0) {
      input_ = nullptr;
    } else {
      current_ = static_cast<char>(c);
    }
  }

  TextInput* input_ = nullptr;
  char current_ = 0;
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

}  // namespace

nlohmann::json parse_json(TextInput& input, const nlohmann::json::parser_callback_t& keep) {
  try {
    return nlohmann::json::parse(InputBytes(input), InputBytes(), keep);
  } catch (const nlohmann::json::exception& e) {
    throw Error(input.where(), kind_of(e, input.at_end()) + "column " + std::to_string(input.column()) + ": " +
                                   problem_of(e));
  }
}

nlohmann::json parse_json_text(std::string_view text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(where, kind_of(e, e.byte >= text.size()) + "column " + std::to_string(e.byte) + ": " + problem_of(e));
  } catch (const nlohmann::json::exception& e) {
    throw Error(where, kind_of(e, false) + problem_of(e));
  }
}

}  // namespace millrace::data::importers
