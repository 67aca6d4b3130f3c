#include "data/typed_duration.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <utility>

#include "data/error.h"

namespace millrace::data {

std::string typed_duration_text(Micros us) {
  // Hours when they are whole or exact to a hundredth (2.5h, 3.9h, not 9000s or 14040s).
  constexpr Micros kHundredthOfAnHour = kMicrosPerHour / 100;
  if (us >= kMicrosPerHour && us % kHundredthOfAnHour == 0) {
    const Micros hundredths = us / kHundredthOfAnHour;
    std::string text = std::to_string(hundredths / 100);
    if (hundredths % 100 != 0) {
      const int cents = static_cast<int>(hundredths % 100);
      text += "." + std::to_string(cents / 10) + (cents % 10 != 0 ? std::to_string(cents % 10) : "");
    }
    return text + "h";
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.6gs", seconds_from_micros(us));
  return text;
}

std::string duration_problem(const std::string& text, Micros max, Micros& micros) {
  static const std::pair<const char*, double> kUnits[] = {
      {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}};
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = used == 0 ? "?" : text.substr(used);
  double scale = unit.empty() ? 1e6 : 0;
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) scale = factor;
  }
  if (used == 0 || scale == 0 || std::isspace(static_cast<unsigned char>(text[0]))) {
    return "not a duration (e.g. 30s, 500ms, 2m, 1h; a bare number is seconds)";
  }
  const double us = value * scale;
  if (!std::isfinite(us)) return "not a finite duration";
  if (us < 0) return "is negative; a duration is at least 0";
  if (us > static_cast<double>(max)) return "is longer than the longest accepted, " + typed_duration_text(max);
  micros = static_cast<Micros>(us + 0.5);
  if (micros == 0 && us > 0) return "is shorter than 1us, the resolution of time in millrace (give 0 or at least 1us)";
  return "";
}

Micros parse_duration(const std::string& text, const std::string& where, Micros max) {
  Micros micros = 0;
  if (std::string problem = duration_problem(text, max, micros); !problem.empty()) {
    throw Error(where + " '" + text + "'", problem);
  }
  return micros;
}

}  // namespace millrace::data
