// Durations as people type them, on the command line and in input files ("30s", "500ms", "2m",
// "1.5h", "250us", or a bare number of seconds): one parser for every option and file field that
// takes one. A duration becomes integer microseconds (data/time.h) only when it is finite, not
// negative, not a positive value that would round to 0 (a 1e-9 s timeout silently meaning
// "none"), and at most a bound (a year by default) far enough from the int64 limit that the sums
// of the simulator and the scheduler cannot overflow.
#pragma once

#include <string>

#include "data/time.h"

namespace millrace::data {

// The longest duration accepted unless the caller names its own bound: 366 days.
inline constexpr Micros kMaxDuration = 366 * 24 * kMicrosPerHour;

// "8784h", "2.5h", "600s", "1.5s": a duration as one would type it, for messages about one (hours
// when whole or exact to a hundredth, else seconds).
std::string typed_duration_text(Micros us);

// Why `text` is not a duration in [0, max] (empty: it is one); `micros` gets its value.
std::string duration_problem(const std::string& text, Micros max, Micros& micros);

// Throws Error naming `where` (an option, or a file's line or key) and `text` when it is not a
// duration in [0, max]: "--timeout '9x': not a duration (...)".
Micros parse_duration(const std::string& text, const std::string& where, Micros max = kMaxDuration);

}  // namespace millrace::data
