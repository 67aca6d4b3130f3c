#include "data/quantity.h"

#include <cctype>
#include <limits>
#include <optional>

#include "data/error.h"

namespace millrace::data {

namespace {

__extension__ typedef __int128 Wide;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr int kMaxSignificantDigits = 19;  // the mantissa is below 10^19; times 2^60 it fits 128 bits

// The suffix's factor: 10^decimal_exponent x 1024^binary_power.
struct Suffix {
  int decimal_exponent = 0;
  int binary_power = 0;
};

std::optional<Suffix> suffix_named(std::string_view s) {
  if (s.empty()) return Suffix{};
  if (s.size() == 1) {
    switch (s[0]) {
      case 'm': return Suffix{-3, 0};
      case 'k': return Suffix{3, 0};
      case 'M': return Suffix{6, 0};
      case 'G': return Suffix{9, 0};
      case 'T': return Suffix{12, 0};
      case 'P': return Suffix{15, 0};
      case 'E': return Suffix{18, 0};
      default: return std::nullopt;
    }
  }
  if (s.size() == 2 && s[1] == 'i') {
    const std::string_view powers = "KMGTPE";
    std::size_t at = powers.find(s[0]);
    if (at != std::string_view::npos) return Suffix{0, static_cast<int>(at) + 1};
  }
  if (s[0] == 'e' || s[0] == 'E') {
    std::string_view digits = s.substr(1);
    bool negative = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 4) return std::nullopt;
    int exponent = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      exponent = exponent * 10 + (c - '0');
    }
    return Suffix{negative ? -exponent : exponent, 0};
  }
  return std::nullopt;
}

}  // namespace

std::int64_t parse_quantity_milli(std::string_view text, const std::string& where) {
  auto refuse = [&](const std::string& problem) -> Error {
    return Error(where, "quantity '" + std::string(text) + "' " + problem);
  };
  std::string_view rest = text;
  if (rest.empty()) throw refuse("is empty");
  if (rest[0] == '-') throw refuse("is negative; requests and capacities are at least 0");
  if (rest[0] == '+') rest.remove_prefix(1);
  std::size_t number_end = 0;
  while (number_end < rest.size() &&
         (std::isdigit(static_cast<unsigned char>(rest[number_end])) || rest[number_end] == '.')) {
    ++number_end;
  }
  std::string_view number = rest.substr(0, number_end);
  std::optional<Suffix> suffix = suffix_named(rest.substr(number_end));
  if (!suffix) {
    throw refuse("is not a Kubernetes quantity (a number, then one of m k M G T P E, Ki Mi Gi Ti Pi Ei, or "
                 "e<exponent>)");
  }
  std::size_t point = number.find('.');
  if (number.empty() || number == "." ||
      (point != std::string_view::npos && number.find('.', point + 1) != std::string_view::npos)) {
    throw refuse("has no number before its suffix (digits, at most one point)");
  }
  std::string_view whole = number.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? std::string_view() : number.substr(point + 1);
  while (!whole.empty() && whole[0] == '0') whole.remove_prefix(1);
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (whole.size() + fraction.size() > kMaxSignificantDigits) {
    if (whole.size() > kMaxSignificantDigits) throw refuse("is beyond 2^63 - 1 milli-units");
    throw refuse("has more than " + std::to_string(kMaxSignificantDigits) + " significant digits");
  }
  // value = mantissa x 10^(exponent) x 1024^binary_power, in milli-units.
  Wide mantissa = 0;
  for (char c : whole) mantissa = mantissa * 10 + (c - '0');
  for (char c : fraction) mantissa = mantissa * 10 + (c - '0');
  int exponent = suffix->decimal_exponent + 3 - static_cast<int>(fraction.size());
  for (int i = 0; i < suffix->binary_power; ++i) mantissa *= 1024;
  if (mantissa == 0) return 0;
  auto too_large = [&] { return refuse("is beyond 2^63 - 1 milli-units"); };
  if (exponent >= 0) {
    for (int i = 0; i < exponent; ++i) {
      mantissa *= 10;
      if (mantissa > kMax) throw too_large();
    }
    if (mantissa > kMax) throw too_large();
    return static_cast<std::int64_t>(mantissa);
  }
  // A fraction of a milli-unit rounds up.
  Wide divisor = 1;
  for (int i = 0; i < -exponent; ++i) {
    if (divisor > mantissa) return 1;
    divisor *= 10;
  }
  Wide quotient = (mantissa + divisor - 1) / divisor;
  if (quotient > kMax) throw too_large();
  return static_cast<std::int64_t>(quotient);
}

std::string format_quantity_milli(std::int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

Quantities parse_quantity_list(std::string_view text, const std::string& where) {
  Quantities amounts;
  const std::string example = "expected NAME=QUANTITY,... e.g. cpu=2,memory=4Gi";
  if (text.empty()) throw Error(where, example);
  for (std::size_t from = 0; from <= text.size();) {
    std::size_t comma = text.find(',', from);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view part = text.substr(from, comma - from);
    const std::size_t equals = part.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      throw Error(where + " '" + std::string(text) + "'", "'" + std::string(part) + "': " + example);
    }
    const std::string name(part.substr(0, equals));
    const std::int64_t milli = parse_quantity_milli(part.substr(equals + 1), where + ": " + name);
    if (!amounts.emplace(name, milli).second) {
      throw Error(where + " '" + std::string(text) + "'", "resource '" + name + "' is given twice");
    }
    from = comma + 1;
  }
  return amounts;
}

std::string short_resource(const Quantities& requests, const Quantities& available) {
  for (const auto& [name, amount] : requests) {
    auto found = available.find(name);
    if (amount > (found == available.end() ? 0 : found->second)) return name;
  }
  return "";
}

std::string quantities_text(const Quantities& milli) {
  std::string text;
  for (const auto& [name, amount] : milli) text += (text.empty() ? "" : ", ") + name + " " + format_quantity_milli(amount);
  return text;
}

}  // namespace millrace::data
