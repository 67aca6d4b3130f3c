// A registry of the named entries of one seam: what a config or the command line picks by name
// (a partitioner, a concurrency policy, an import format, a cluster kind). Each seam keeps one
// Registry and adds its entries in one place, one line each, in the order they are listed to
// users; a name looked up and not found is refused naming it and listing the known ones, so a
// typo never silently means a default. `T` is whatever the seam looks up: an object, a factory,
// a struct of functions.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "data/error.h"

namespace millrace::data {

template <typename T>
class Registry {
 public:
  // `what` names an entry in messages: "partitioner", "import format".
  explicit Registry(std::string what) : what_(std::move(what)) {}

  // Adds `entry` under `name`; a name given twice is a programming error (std::logic_error).
  Registry& add(std::string name, T entry) {
    if (name.empty() || lookup(name) != nullptr) {
      throw std::logic_error(what_ + " '" + name + "' registered twice or without a name");
    }
    entries_.emplace_back(std::move(name), std::move(entry));
    return *this;
  }

  // The entry of `name`, or nullptr.
  const T* lookup(const std::string& name) const {
    auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == name; });
    return found == entries_.end() ? nullptr : &found->second;
  }

  // The entry of `name`; throws data::Error naming `input` (the option or file:line that gave the
  // name): "unknown <what> '<name>' (known: a, b, c)".
  const T& find(const std::string& name, const std::string& input) const {
    if (const T* entry = lookup(name)) return *entry;
    throw Error(input, "unknown " + what_ + " '" + name + "' (known: " + known() + ")");
  }

  // The names in registration order.
  std::vector<std::string> names() const {
    std::vector<std::string> all;
    for (const auto& [name, entry] : entries_) all.push_back(name);
    return all;
  }

  // The names joined for a message or a help text: "a, b, c".
  std::string known(const std::string& separator = ", ") const {
    std::string text;
    for (const auto& [name, entry] : entries_) text += (text.empty() ? "" : separator) + name;
    return text;
  }

  const std::vector<std::pair<std::string, T>>& entries() const { return entries_; }

  // The name `entry` is registered under ("?" when none), for entries that compare equal.
  const char* name_of(const T& entry) const {
    auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.second == entry; });
    return found == entries_.end() ? "?" : found->first.c_str();
  }

 private:
  std::string what_;
  std::vector<std::pair<std::string, T>> entries_;
};

}  // namespace millrace::data
