// The --span option of the commands that cut a sequence: "FIRST:LAST", inclusive unit numbers.
#pragma once

#include <string>

#include "data/records.h"

namespace millrace::cli {

// Throws data::Error naming the option when `text` is not FIRST:LAST with FIRST <= LAST, or
// when the span or its exclusive end (LAST + 1) does not fit in 64 bits.
data::Range parse_span(const std::string& text);

}  // namespace millrace::cli
