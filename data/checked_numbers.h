// Checked arithmetic for every place where text (or a stored row) becomes a number that later
// arithmetic relies on: a range's first + count, END - COUNT + 1, seconds x 10^6, start + duration.
// Each operation returns nullopt instead of wrapping or invoking undefined behaviour, so the
// caller can name the input, the field and the value in its Error (importers: fields.h).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "data/records.h"
#include "data/time.h"

namespace millrace::data {

// The largest time millrace records: 2^53 microseconds (about 285 years). Below it a time is
// exact as a double number of seconds, so exported times import back unchanged, and sums of a
// few hundred such times still fit in 64 bits.
inline constexpr Micros kMaxMicros = Micros{1} << 53;
// kMaxMicros in words, for the errors that refuse a time beyond it.
inline constexpr const char* kMaxMicrosText = "9007199254740992 us (2^53, about 285 years: the simulator's clock)";

// A duration computed in floating point (a drawn delay, a prediction times a noise factor) in
// whole microseconds, rounded and held within [0, kMaxMicros] (NaN: kMaxMicros) instead of
// wrapping into a negative or zero time.
Micros saturated_micros(double micros);

inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

inline std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t difference = 0;
  if (__builtin_sub_overflow(a, b, &difference)) return std::nullopt;
  return difference;
}

inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// `value` as an int when it fits.
inline std::optional<int> to_int(std::int64_t value) {
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(value);
}

// A whole decimal integer (optional sign, nothing else); nullopt when not one or beyond 64 bits.
enum class IntegerProblem { kNotAnInteger, kOutOfRange };
struct ParsedInteger {
  std::optional<std::int64_t> value;
  IntegerProblem problem = IntegerProblem::kNotAnInteger;  // when value is unset
};
ParsedInteger parse_integer(std::string_view text);

// `value` units of `micros_per_unit` microseconds each (seconds: 10^6), rounded to the nearest
// microsecond; nullopt when not finite or beyond +-kMaxMicros.
std::optional<Micros> micros_from_real(double value, double micros_per_unit);

// A whole number held in a double (an SWF field, a day's block count) as an integer, when it is
// one and lies within +-2^53 (where doubles still count every integer).
std::optional<std::int64_t> whole_number(double value);

// The range [first, first + count) when count > 0 and its exclusive end fits in 64 bits.
std::optional<Range> range_from_first_count(std::int64_t first, std::int64_t count);
// The range whose last unit is `end` (inclusive) and holds `count` units: first = end - count + 1.
std::optional<Range> range_from_end_count(std::int64_t end, std::int64_t count);

}  // namespace millrace::data
