// The --span option of the commands that cut a sequence: "FIRST:LAST", inclusive unit numbers.
// Unit numbers, and the counts, lengths and overlaps of options about them, are at most 2^61 in
// absolute value, so that a span's count and end, and a range's first minus an overlap, cannot
// overflow 64 bits.
#pragma once

#include <cstdint>
#include <string>

#include "data/records.h"

namespace millrace::cli {

inline constexpr std::int64_t kMaxUnit = std::int64_t{1} << 61;

// Throws data::Error naming the option when `text` is not FIRST:LAST with FIRST <= LAST, both
// within kMaxUnit.
data::Range parse_span(const std::string& text);

}  // namespace millrace::cli
