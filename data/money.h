// Money as millrace reads, sums and prints it: an exact decimal amount in integer millionths of
// the currency's unit, never a binary float, so that totals agree with a hand computation to the
// cent. Prices come in as typed decimals ("0.19", "12", "0.000125") and are refused when negative,
// not a plain decimal, finer than a millionth or too large (more than 10^12 units); sums are
// checked for overflow. One formatting module for every command: money_text() prints a figure
// with its currency ("20.00 USD"), exact_money() the exact decimal JSON carries as a string (a
// JSON number is a binary double to most readers, which would round the cents away).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "data/time.h"

namespace millrace::data {

inline constexpr std::int64_t kMillionthsPerUnit = 1'000'000;

// The 128-bit integer exact sums and products of money are made in (a GCC and Clang extension).
__extension__ typedef __int128 WideMoney;

struct Money {
  std::int64_t millionths = 0;
  auto operator<=>(const Money&) const = default;
};

// The largest amount a price may be: 10^12 units (an hour of anything costs less).
inline constexpr Money kMaxPrice{1'000'000'000'000 * kMillionthsPerUnit};

// Throws Error naming `where` and `text` unless it is a decimal amount from 0 to kMaxPrice with at
// most six decimals: "--worker-price '-1': is negative; a price is at least 0".
Money parse_money(const std::string& text, const std::string& where);

// a + b; throws Error naming `what` when the sum is beyond 64-bit millionths.
Money checked_sum(Money a, Money b, const std::string& what);

// What a price per hour comes to over machine time added up: price x time / 1 h, summed exactly
// in 128-bit arithmetic and rounded half up to the millionth once, at the end.
class HourlyTally {
 public:
  explicit HourlyTally(Money per_hour) : per_hour_(per_hour) {}
  // `machines` machines for `time` each.
  void add(Micros time, std::int64_t machines = 1);
  // Throws Error naming `what` when the amount is beyond what 64-bit millionths hold.
  Money total(const std::string& what) const;

 private:
  Money per_hour_;
  WideMoney product_ = 0;  // millionths x microseconds
  bool overflow_ = false;
};

// The mean of amounts, rounded half up to the millionth (0 for none).
Money mean_of(const std::vector<Money>& amounts);

// The exact decimal, at least two decimals and no trailing zeros past them: "15.00", "0.000528",
// "1234.5678".
std::string exact_money(Money amount);

// The figure a person reads, with its currency: to the cent ("20.00 USD", "1,234.57 USD",
// rounded half up), or to the first significant millionth below a cent ("0.0005 USD").
std::string money_text(Money amount, const std::string& currency);

// The band of two amounts: "18.40-22.10 USD".
std::string money_band(Money low, Money high, const std::string& currency);

}  // namespace millrace::data
