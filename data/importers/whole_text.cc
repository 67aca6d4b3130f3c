#include "data/importers/whole_text.h"

#include "data/importers/text_input.h"

namespace millrace::data::importers {

WholeText WholeText::read(const std::string& path) {
  TextInput input(path);
  WholeText whole;
  whole.name_ = input.name();
  while (input.next_line()) {
    if (!whole.line_starts_.empty()) whole.text_ += '\n';
    whole.line_starts_.push_back(whole.text_.size());
    whole.text_ += input.line();
  }
  return whole;
}

std::string_view WholeText::line(std::size_t number) const {
  const std::size_t start = line_starts_.at(number - 1);
  const std::size_t end = number < line_starts_.size() ? line_starts_[number] - 1 : text_.size();
  return std::string_view(text_).substr(start, end - start);
}

}  // namespace millrace::data::importers
