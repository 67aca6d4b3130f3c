// Time in millrace: integer microseconds everywhere (virtual or wall-clock), never floating
// seconds, so sums and replays do not drift.
#pragma once

#include <cstdint>

namespace millrace::data {

using Micros = std::int64_t;

inline constexpr Micros kMicrosPerMilli = 1'000;
inline constexpr Micros kMicrosPerSecond = 1'000'000;
inline constexpr Micros kMicrosPerHour = 3'600 * kMicrosPerSecond;

// Rounds seconds given as a real number (e.g. parsed from a log) to the nearest microsecond.
constexpr Micros micros_from_seconds(double seconds) {
  return static_cast<Micros>(seconds * kMicrosPerSecond + (seconds < 0 ? -0.5 : 0.5));
}

constexpr double seconds_from_micros(Micros us) { return static_cast<double>(us) / kMicrosPerSecond; }

// The unit a table of times up to `largest` reads best in: hours from an hour up, else seconds.
struct DisplayUnit {
  const char* name;  // "hours" or "seconds"
  Micros micros;     // microseconds per unit

  double of(Micros us) const { return static_cast<double>(us) / static_cast<double>(micros); }
};

constexpr DisplayUnit display_unit(Micros largest) {
  return largest >= kMicrosPerHour ? DisplayUnit{"hours", kMicrosPerHour} : DisplayUnit{"seconds", kMicrosPerSecond};
}

}  // namespace millrace::data
