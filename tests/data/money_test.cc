// Money and billing rules (data/money.h, data/billing.h): amounts and billed times computed by
// hand here.
#include <gtest/gtest.h>

#include <string>

#include "data/billing.h"
#include "data/error.h"
#include "data/money.h"

namespace millrace::data {
namespace {

constexpr Micros kSecond = kMicrosPerSecond;

std::int64_t millionths(const std::string& text) { return parse_money(text, "--worker-price").millionths; }

std::string problem_of(const std::string& text) {
  try {
    parse_money(text, "nodes.csv:3: price");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Money, DecimalsBecomeExactMillionths) {
  EXPECT_EQ(millionths("0.19"), 190'000);
  EXPECT_EQ(millionths("12"), 12'000'000);
  EXPECT_EQ(millionths("1.000001"), 1'000'001);
  EXPECT_EQ(millionths("0.5000000"), 500'000);  // trailing zeros past the millionth change nothing
  EXPECT_EQ(millionths("+3.25"), 3'250'000);
  EXPECT_EQ(millionths("0"), 0);
}

TEST(Money, NegativeNonNumericTooFineAndTooLargeAmountsAreRefusedNamingTheInput) {
  EXPECT_EQ(problem_of("-1"), "nodes.csv:3: price '-1': is negative; a price is at least 0");
  EXPECT_NE(problem_of("abc").find("nodes.csv:3: price 'abc': not a decimal amount"), std::string::npos);
  EXPECT_NE(problem_of("1e3").find("not a decimal amount"), std::string::npos);
  EXPECT_NE(problem_of("").find("not a decimal amount"), std::string::npos);
  EXPECT_NE(problem_of(".").find("not a decimal amount"), std::string::npos);
  EXPECT_NE(problem_of("0.1234567").find("more than 6 decimals"), std::string::npos);
  EXPECT_NE(problem_of("1000000000001").find("more than the largest price"), std::string::npos);
  EXPECT_NE(problem_of("99999999999999999999999").find("more than the largest price"), std::string::npos);
}

TEST(Money, HourlyTallyRoundsOnceToTheMillionth) {
  // 0.19 per hour for 10 s: 0.19 x 10 / 3600 = 0.000527777... -> 0.000528.
  HourlyTally tally(Money{190'000});
  tally.add(10 * kSecond);
  EXPECT_EQ(tally.total("test").millionths, 528);
  // Three such machines, summed before rounding: 0.0015833... -> 0.001583 (not 3 x 0.000528).
  HourlyTally three(Money{190'000});
  three.add(10 * kSecond, 3);
  EXPECT_EQ(three.total("test").millionths, 1'583);
  // Ten nodes of 1.5 h at 1.00: 15.00 exactly.
  HourlyTally nodes(Money{1'000'000});
  nodes.add(kMicrosPerHour * 3 / 2, 10);
  EXPECT_EQ(nodes.total("test").millionths, 15'000'000);
}

TEST(Money, OverflowIsAnErrorNamingTheFigure) {
  HourlyTally tally(kMaxPrice);
  tally.add(366 * 24 * kMicrosPerHour, 1'000'000);
  EXPECT_THROW(
      {
        try {
          tally.total("the cost of pool 'big'");
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("the cost of pool 'big'"), std::string::npos);
          throw;
        }
      },
      Error);
  EXPECT_THROW(checked_sum(Money{INT64_MAX}, Money{1}, "total"), Error);
}

TEST(Money, TextIsToTheCentWithTheCurrencyAndExactInJson) {
  EXPECT_EQ(money_text(Money{20'000'000}, "USD"), "20.00 USD");
  EXPECT_EQ(money_text(Money{1'234'565'000}, "EUR"), "1,234.57 EUR");  // half up
  EXPECT_EQ(money_text(Money{1'234'564'999}, "EUR"), "1,234.56 EUR");
  EXPECT_EQ(money_text(Money{528}, "USD"), "0.0005 USD");  // below a cent: its first significant digit
  EXPECT_EQ(money_text(Money{0}, "USD"), "0.00 USD");
  EXPECT_EQ(money_band(Money{18'400'000}, Money{22'100'000}, "USD"), "18.40-22.10 USD");
  EXPECT_EQ(exact_money(Money{15'000'000}), "15.00");
  EXPECT_EQ(exact_money(Money{528}), "0.000528");
  EXPECT_EQ(exact_money(Money{1'234'567'800}), "1234.5678");
  EXPECT_EQ(mean_of({Money{1}, Money{2}}).millionths, 2);  // 1.5 rounds half up
}

TEST(Billing, RulesAsSpeltInFilesAndOptions) {
  EXPECT_EQ(parse_billing("", "b"), (BillingRule{kSecond, 0}));
  EXPECT_EQ(parse_billing("per-second", "b"), (BillingRule{kSecond, 0}));
  EXPECT_EQ(parse_billing("per-second:60s", "b"), (BillingRule{kSecond, 60 * kSecond}));
  EXPECT_EQ(parse_billing("per-minute", "b"), (BillingRule{60 * kSecond, 0}));
  EXPECT_EQ(parse_billing("per-hour", "b"), (BillingRule{kMicrosPerHour, 0}));
  EXPECT_EQ(billing_text(parse_billing("per-second:60s", "b")), "per-second:60s");
  EXPECT_EQ(billing_text(parse_billing("per-hour", "b")), "per-hour");
}

TEST(Billing, UnknownRulesAndBadMinimumsAreRefusedNamingTheInput) {
  try {
    parse_billing("per-day", "pools.csv:4: billing");
    FAIL() << "per-day accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pools.csv:4: billing 'per-day': unknown billing rule (known: per-second"),
              std::string::npos);
  }
  EXPECT_THROW(parse_billing("per-second:-5s", "b"), Error);
  EXPECT_THROW(parse_billing("per-second:soon", "b"), Error);
}

TEST(Billing, LifetimesRoundUpToTheUnitThenTheMinimum) {
  const BillingRule per_second = parse_billing("", "b");
  const BillingRule minimum = parse_billing("per-second:60s", "b");
  const BillingRule per_hour = parse_billing("per-hour", "b");
  const BillingRule per_minute = parse_billing("per-minute", "b");
  EXPECT_EQ(billed_time(per_second, 10 * kSecond), 10 * kSecond);
  EXPECT_EQ(billed_time(per_second, 10 * kSecond + 1), 11 * kSecond);
  EXPECT_EQ(billed_time(minimum, 10 * kSecond), 60 * kSecond);
  EXPECT_EQ(billed_time(minimum, 90 * kSecond), 90 * kSecond);
  EXPECT_EQ(billed_time(per_hour, kMicrosPerHour * 3 / 2), 2 * kMicrosPerHour);
  EXPECT_EQ(billed_time(per_hour, kMicrosPerHour), kMicrosPerHour);
  EXPECT_EQ(billed_time(per_minute, 61 * kSecond), 120 * kSecond);
  EXPECT_EQ(billed_time(minimum, 0), 0);  // never ran: nothing billed
}

}  // namespace
}  // namespace millrace::data
