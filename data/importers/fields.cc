#include "data/importers/fields.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "data/checked_numbers.h"
#include "data/error.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string max_time_text() { return std::to_string(kMaxMicros / kMicrosPerSecond) + " s (about 285 years)"; }

Micros non_negative_micros(double value, double scale, std::string_view text, const std::string& where,
                           std::string_view what) {
  if (value < 0) throw Error(where, "negative " + std::string(what) + " " + excerpt(text));
  auto micros = micros_from_real(value, scale);
  if (!micros) throw Error(where, std::string(what) + " " + excerpt(text) + " out of range (at most " + max_time_text() + ")");
  return *micros;
}

}  // namespace

std::int64_t parse_int(std::string_view text, const std::string& where, std::string_view what) {
  ParsedInteger parsed = parse_integer(trimmed(text));
  if (parsed.value) return *parsed.value;
  if (parsed.problem == IntegerProblem::kOutOfRange) {
    throw Error(where, std::string(what) + " " + excerpt(text) + " out of range (beyond 64-bit integers)");
  }
  throw Error(where, "non-numeric " + std::string(what) + " " + excerpt(text) + " (expected an integer)");
}

int parse_int32(std::string_view text, const std::string& where, std::string_view what) {
  auto value = to_int(parse_int(text, where, what));
  if (!value) {
    throw Error(where, std::string(what) + " " + excerpt(text) + " out of range (" +
                           std::to_string(std::numeric_limits<int>::min()) + " to " +
                           std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  return *value;
}

double parse_real(std::string_view text, const std::string& where, std::string_view what) {
  std::string_view t = trimmed(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && !std::isfinite(value))) {
    throw Error(where, std::string(what) + " " + excerpt(text) + " out of range (beyond double precision)");
  }
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
    throw Error(where, "non-numeric " + std::string(what) + " " + excerpt(text) + " (expected a number)");
  }
  return value;
}

Micros parse_seconds(std::string_view text, const std::string& where, std::string_view what) {
  return non_negative_micros(parse_real(text, where, what), kMicrosPerSecond, text, where, what);
}

Micros parse_millis(std::string_view text, const std::string& where, std::string_view what) {
  return non_negative_micros(parse_real(text, where, what), kMicrosPerMilli, text, where, what);
}

void check_count(std::int64_t count, const std::string& where, std::string_view what) {
  if (count <= 0) throw Error(where, std::string(what) + " " + std::to_string(count) + ": a range needs COUNT > 0");
}

Range end_count_range(std::int64_t end, std::int64_t count, const std::string& where, std::string_view what) {
  check_count(count, where, what);
  auto range = range_from_end_count(end, count);
  if (!range) {
    throw Error(where, std::string(what) + " " + std::to_string(end) + "/" + std::to_string(count) +
                           " out of range: its first unit END - COUNT + 1 or its end does not fit in 64 bits");
  }
  return *range;
}

Range first_count_range(std::int64_t first, std::int64_t count, const std::string& where, std::string_view what) {
  check_count(count, where, what);
  auto range = range_from_first_count(first, count);
  if (!range) {
    throw Error(where, std::string(what) + " first " + std::to_string(first) + ", count " + std::to_string(count) +
                           " out of range: first + count does not fit in 64 bits");
  }
  return *range;
}

Range parse_end_count(std::string_view text, const std::string& where) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) throw Error(where, "range " + excerpt(text) + " is not END/COUNT");
  std::int64_t end = parse_int(text.substr(0, slash), where, "range END");
  std::int64_t count = parse_int(text.substr(slash + 1), where, "range COUNT");
  return end_count_range(end, count, where, "range END/COUNT");
}

Micros time_sum(Micros a, Micros b, const std::string& where, std::string_view what) {
  auto sum = checked_add(a, b);
  if (!sum || *sum > kMaxMicros) {
    throw Error(where, std::string(what) + " out of range: " + std::to_string(a) + " + " + std::to_string(b) +
                           " us passes " + max_time_text());
  }
  return *sum;
}

}  // namespace millrace::data::importers
