#include "cli/span_option.h"

#include <cstdint>
#include <stdexcept>

#include "data/error.h"

namespace millrace::cli {

data::Range parse_span(const std::string& text) {
  const auto colon = text.find(':', 1);
  try {
    if (colon == std::string::npos) throw std::invalid_argument(text);
    std::size_t used_first = 0, used_last = 0;
    const std::int64_t first = std::stoll(text.substr(0, colon), &used_first);
    const std::int64_t last = std::stoll(text.substr(colon + 1), &used_last);
    if (used_first != colon || used_last != text.size() - colon - 1) throw std::invalid_argument(text);
    if (first < -kMaxUnit || last > kMaxUnit) {
      throw data::Error("--span " + text, "unit numbers are limited to +-" + std::to_string(kMaxUnit) + " (2^61)");
    }
    if (last < first) throw data::Error("--span " + text, "LAST is before FIRST");
    return {first, last - first + 1};  // within +-2^61: no overflow
  } catch (const std::logic_error&) {
    throw data::Error("--span " + text, "expected FIRST:LAST (inclusive unit numbers)");
  }
}

}  // namespace millrace::cli
