#include "data/readable_duration.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace millrace::data {

namespace {

// The unit a duration of `size` seconds reads in, and its printf format.
struct Unit {
  double seconds;
  const char* format;  // of the value in this unit, with the unit's name
};

Unit unit_of(double size) {
  if (size < 1) return {1e-3, "%.0f ms"};
  if (size < 60) return {1, "%.1f s"};
  if (size < 3600) return {60, "%.1f min"};
  return {3600, "%.2f h"};
}

std::string formatted(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

std::string readable_duration(Micros us) {
  if (us == 0) return "0 s";
  const double s = seconds_from_micros(us);
  const Unit unit = unit_of(std::abs(s));
  return formatted(unit.format, s / unit.seconds);
}

std::string exact_seconds(Micros us) {
  const Micros millis = (us + (us < 0 ? -500 : 500)) / kMicrosPerMilli;
  std::string text = grouped(millis / 1000);
  if (millis < 0 && millis > -1000) text = "-" + text;
  if (const Micros rest = std::llabs(millis % 1000); rest != 0) {
    std::string decimals = formatted("%03.0f", static_cast<double>(rest));
    while (decimals.back() == '0') decimals.pop_back();
    text += "." + decimals;
  }
  return text + " s";
}

std::string duration_text(Micros us) {
  const std::string readable = readable_duration(us);
  const std::string exact = exact_seconds(us);
  if (std::llabs(us) < 60 * kMicrosPerSecond) return std::llabs(us) < kMicrosPerSecond ? readable : exact;
  return readable + " (" + exact + ")";
}

std::string readable_band(Micros low, Micros high) {
  const double larger = std::max(std::abs(seconds_from_micros(low)), std::abs(seconds_from_micros(high)));
  const Unit unit = unit_of(larger);
  // The unit's format with the low value before it: "%.2f-%.2f h".
  const std::string format = unit.format;
  const std::size_t space = format.find(' ');
  const std::string number = format.substr(0, space);
  return formatted(number.c_str(), seconds_from_micros(low) / unit.seconds) + "-" +
         formatted(format.c_str(), seconds_from_micros(high) / unit.seconds);
}

std::string readable_number(double value) {
  const double size = std::abs(value);
  if (size >= 100) return grouped(std::llround(value));
  if (size >= 1) return formatted("%.2f", value);
  if (size > 0) return formatted("%.2g", value);
  return "0";
}

std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n < 0 ? -(n + 1) + std::uint64_t{1} : static_cast<std::uint64_t>(n));
  std::string text;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return n < 0 ? "-" + text : text;
}

std::string counted(std::int64_t n, std::string_view one, std::string_view many) {
  std::string noun(n == 1 ? one : many);
  if (n != 1 && many.empty()) noun = std::string(one) + "s";
  return grouped(n) + " " + noun;
}

std::string node_time(double hours, std::string_view noun) {
  const std::string name(noun);
  const double size = std::abs(hours);
  if (size >= 100) return grouped(std::llround(hours)) + " " + name + "-hours";
  if (size >= 1) return formatted("%.2f", hours) + " " + name + "-hours";
  if (size * 60 >= 1) return formatted("%.1f", hours * 60) + " " + name + "-minutes";
  return formatted("%.1f", hours * 3600) + " " + name + "-seconds";
}

std::string readable_quantity(const std::string& resource, std::int64_t milli) {
  const bool bytes = resource == "memory" || resource == "ephemeral-storage" || resource == "storage" ||
                     resource.rfind("hugepages-", 0) == 0;
  if (!bytes || milli <= 0 || milli % 1000 != 0) return format_quantity_milli(milli);
  std::int64_t amount = milli / 1000;
  const char* unit = "";
  for (const char* binary : {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}) {
    if (amount % 1024 != 0) break;
    amount /= 1024;
    unit = binary;
  }
  return std::to_string(amount) + unit;
}

std::string readable_quantities(const Quantities& milli) {
  std::string text;
  for (const auto& [name, amount] : milli) text += (text.empty() ? "" : ", ") + name + " " + readable_quantity(name, amount);
  return text;
}

}  // namespace millrace::data
