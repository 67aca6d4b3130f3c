#include "data/money.h"

#include <cctype>

#include "data/error.h"
#include "data/readable_duration.h"

namespace millrace::data {

namespace {

using Wide = WideMoney;

// Why `text` is no price (empty: it is one); `amount` gets its value.
std::string money_problem(const std::string& text, Money& amount) {
  const std::string kind = "not a decimal amount (e.g. 0.19, 12, 1.5)";
  if (text.empty()) return kind;
  if (text[0] == '-') return "is negative; a price is at least 0";
  std::size_t i = text[0] == '+' ? 1 : 0;
  Wide units = 0;
  std::size_t whole_digits = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++whole_digits) {
    units = units * 10 + (text[i] - '0');
    if (units > kMaxPrice.millionths / kMillionthsPerUnit) return "is more than the largest price, 10^12";
  }
  Wide millionths = units * kMillionthsPerUnit;
  std::size_t decimals = 0;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++decimals) {
      if (decimals >= 6) {
        if (text[i] != '0') return "has more than 6 decimals; money is counted in millionths";
        continue;
      }
      Wide step = 1;
      for (std::size_t k = decimals; k < 5; ++k) step *= 10;
      millionths += (text[i] - '0') * step;
    }
  }
  if (i != text.size() || whole_digits + decimals == 0) return kind;
  if (millionths > kMaxPrice.millionths) return "is more than the largest price, 10^12";
  amount.millionths = static_cast<std::int64_t>(millionths);
  return "";
}

Money checked(Wide value, const std::string& what) {
  if (value > INT64_MAX || value < INT64_MIN) throw Error(what, "the amount is beyond what millrace counts (9.2 x 10^12)");
  return Money{static_cast<std::int64_t>(value)};
}

// Non-negative `numerator` / `denominator`, rounded half up.
Wide divided_half_up(Wide numerator, Wide denominator) { return (2 * numerator + denominator) / (2 * denominator); }

// "1,234" and the decimals of a non-negative amount rounded to `decimals` places.
std::string fixed(Money amount, int decimals) {
  Wide scale = 1;
  for (int k = decimals; k < 6; ++k) scale *= 10;
  const Wide rounded = divided_half_up(amount.millionths, scale);
  Wide unit = 1;
  for (int k = 0; k < decimals; ++k) unit *= 10;
  std::string fraction = std::to_string(static_cast<std::int64_t>(rounded % unit));
  fraction.insert(0, static_cast<std::size_t>(decimals) - fraction.size(), '0');
  return grouped(static_cast<std::int64_t>(rounded / unit)) + (decimals > 0 ? "." + fraction : "");
}

}  // namespace

Money parse_money(const std::string& text, const std::string& where) {
  Money amount;
  if (std::string problem = money_problem(text, amount); !problem.empty()) throw Error(where + " '" + text + "'", problem);
  return amount;
}

Money checked_sum(Money a, Money b, const std::string& what) {
  return checked(static_cast<Wide>(a.millionths) + b.millionths, what);
}

void HourlyTally::add(Micros time, std::int64_t machines) {
  Wide product = 0;
  overflow_ = overflow_ || __builtin_mul_overflow(static_cast<Wide>(per_hour_.millionths) * time, machines, &product) ||
              __builtin_add_overflow(product_, product, &product_);
}

Money HourlyTally::total(const std::string& what) const {
  if (overflow_) throw Error(what, "the amount is beyond what millrace counts (9.2 x 10^12)");
  return checked(divided_half_up(product_, kMicrosPerHour), what);
}

Money mean_of(const std::vector<Money>& amounts) {
  if (amounts.empty()) return {};
  Wide sum = 0;
  for (Money m : amounts) sum += m.millionths;
  return Money{static_cast<std::int64_t>(divided_half_up(sum, static_cast<Wide>(amounts.size())))};
}

std::string exact_money(Money amount) {
  const bool negative = amount.millionths < 0;
  const Wide magnitude = negative ? -static_cast<Wide>(amount.millionths) : amount.millionths;
  std::string fraction = std::to_string(static_cast<std::int64_t>(magnitude % kMillionthsPerUnit));
  fraction.insert(0, 6 - fraction.size(), '0');
  while (fraction.size() > 2 && fraction.back() == '0') fraction.pop_back();
  return (negative ? "-" : "") + std::to_string(static_cast<std::int64_t>(magnitude / kMillionthsPerUnit)) + "." +
         fraction;
}

std::string money_text(Money amount, const std::string& currency) {
  if (amount.millionths < 0) return "-" + money_text(Money{-amount.millionths}, currency);
  int decimals = 2;
  // Below a cent: as many decimals as the first significant digit needs.
  for (std::int64_t below = 10'000; amount.millionths > 0 && amount.millionths < below && decimals < 6; below /= 10) {
    ++decimals;
  }
  return fixed(amount, decimals) + " " + currency;
}

std::string money_band(Money low, Money high, const std::string& currency) {
  const std::string high_text = money_text(high, currency);
  const std::string low_text = money_text(low, currency);
  return low_text.substr(0, low_text.size() - currency.size() - 1) + "-" + high_text;
}

}  // namespace millrace::data
