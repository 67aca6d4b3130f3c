#include "data/checked_numbers.h"

#include <charconv>
#include <cmath>

namespace millrace::data {

ParsedInteger parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || end != text.data() + text.size()) return {std::nullopt, IntegerProblem::kNotAnInteger};
  if (ec == std::errc::result_out_of_range) return {std::nullopt, IntegerProblem::kOutOfRange};
  if (ec != std::errc()) return {std::nullopt, IntegerProblem::kNotAnInteger};
  return {value, IntegerProblem::kNotAnInteger};
}

std::optional<Micros> micros_from_real(double value, double micros_per_unit) {
  const double micros = value * micros_per_unit;
  if (!std::isfinite(micros) || std::fabs(micros) > static_cast<double>(kMaxMicros)) return std::nullopt;
  return static_cast<Micros>(std::llround(micros));
}

Micros saturated_micros(double micros) {
  if (!(micros < static_cast<double>(kMaxMicros))) return kMaxMicros;  // NaN too
  return micros <= 0 ? 0 : static_cast<Micros>(std::llround(micros));
}

std::optional<std::int64_t> whole_number(double value) {
  constexpr double kLimit = static_cast<double>(std::int64_t{1} << 53);
  if (!std::isfinite(value) || std::fabs(value) > kLimit || value != std::trunc(value)) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

std::optional<Range> range_from_first_count(std::int64_t first, std::int64_t count) {
  if (count <= 0 || !checked_add(first, count)) return std::nullopt;
  return Range{first, count};
}

std::optional<Range> range_from_end_count(std::int64_t end, std::int64_t count) {
  if (count <= 0) return std::nullopt;
  auto before_first = checked_sub(end, count);
  if (!before_first) return std::nullopt;
  return range_from_first_count(*before_first + 1, count);
}

}  // namespace millrace::data
