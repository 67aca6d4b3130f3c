// Reading the DOM chromium dumps (--dump-dom) in the live page's browser tests: the opening tag
// of an element by id, an attribute's value (entities decoded), every opening tag carrying an
// attribute, an element's first text. Enough for the page's own markup, whose figures sit in
// data-* attributes and text nodes; not an HTML parser for arbitrary pages.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace millrace::test_support {

inline std::string decode_entities(std::string text) {
  const std::pair<std::string, std::string> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&nbsp;", "\xc2\xa0"}, {"&amp;", "&"}};
  for (const auto& [entity, character] : entities) {
    for (std::size_t at = text.find(entity); at != std::string::npos; at = text.find(entity, at + character.size())) {
      text.replace(at, entity.size(), character);
    }
  }
  return text;
}

// The value of `name` in an opening tag (decoded); none when the tag lacks it.
inline std::optional<std::string> attribute(const std::string& tag, const std::string& name) {
  const std::size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return std::nullopt;
  const std::size_t from = at + name.size() + 3;
  return decode_entities(tag.substr(from, tag.find('"', from) - from));
}

// Every opening tag carrying `name` (in document order).
inline std::vector<std::string> tags_having(const std::string& dom, const std::string& name) {
  std::vector<std::string> tags;
  for (std::size_t at = dom.find(" " + name + "=\""); at != std::string::npos; at = dom.find(" " + name + "=\"", at + 1)) {
    const std::size_t open = dom.rfind('<', at);
    tags.push_back(dom.substr(open, dom.find('>', at) - open + 1));
  }
  return tags;
}

// The opening tag (from '<' to '>') whose `name` is `value` once decoded; empty when none.
inline std::string tag_with(const std::string& dom, const std::string& name, const std::string& value) {
  for (const std::string& tag : tags_having(dom, name)) {
    if (attribute(tag, name) == value) return tag;
  }
  return "";
}

inline std::string tag_by_id(const std::string& dom, const std::string& id) { return tag_with(dom, "id", id); }

// The text right after the element's opening tag (up to the next tag), decoded.
inline std::string text_of(const std::string& dom, const std::string& id) {
  const std::string tag = tag_by_id(dom, id);
  if (tag.empty()) return "";
  const std::size_t from = dom.find(tag) + tag.size();
  return decode_entities(dom.substr(from, dom.find('<', from) - from));
}

}  // namespace millrace::test_support
