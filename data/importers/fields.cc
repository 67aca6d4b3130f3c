#include "data/importers/fields.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "data/error.h"

namespace millrace::data::importers {

namespace {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

Micros non_negative_micros(double value, double scale, std::string_view text, const std::string& where,
                           std::string_view what) {
  if (value < 0) throw Error(where, "negative " + std::string(what) + " " + quoted(text));
  return static_cast<Micros>(std::llround(value * scale));
}

}  // namespace

std::int64_t parse_int(std::string_view text, const std::string& where, std::string_view what) {
  std::string_view t = trimmed(text);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
    throw Error(where, "non-numeric " + std::string(what) + " " + quoted(text) + " (expected an integer)");
  }
  return value;
}

double parse_real(std::string_view text, const std::string& where, std::string_view what) {
  std::string_view t = trimmed(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(value)) {
    throw Error(where, "non-numeric " + std::string(what) + " " + quoted(text) + " (expected a number)");
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

Range parse_end_count(std::string_view text, const std::string& where) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) throw Error(where, "range " + quoted(text) + " is not END/COUNT");
  std::int64_t end = parse_int(text.substr(0, slash), where, "range END");
  std::int64_t count = parse_int(text.substr(slash + 1), where, "range COUNT");
  check_count(count, where, "range COUNT");
  std::int64_t first = 0;  // end - (count - 1), and the exclusive end end + 1, must fit
  if (end == std::numeric_limits<std::int64_t>::max() || __builtin_sub_overflow(end, count - 1, &first)) {
    throw Error(where, "range " + quoted(text) + " does not fit in 64-bit unit numbers");
  }
  return Range{first, count};
}

}  // namespace millrace::data::importers
