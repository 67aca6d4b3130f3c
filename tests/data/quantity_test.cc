#include "data/quantity.h"

#include <gtest/gtest.h>

#include <string>

#include "data/error.h"

namespace millrace::data {
namespace {

std::int64_t milli(const std::string& text) { return parse_quantity_milli(text, "test"); }

// Expected values computed by hand: value x 1000, binary suffixes as powers of 1024.
TEST(Quantity, DecimalSuffixesGiveMilliUnits) {
  EXPECT_EQ(milli("250m"), 250);
  EXPECT_EQ(milli("1"), 1000);
  EXPECT_EQ(milli("+2"), 2000);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli("0.5"), 500);
  EXPECT_EQ(milli(".5"), 500);
  EXPECT_EQ(milli("5."), 5000);
  EXPECT_EQ(milli("460m"), 460);
  EXPECT_EQ(milli("2k"), 2'000'000);
  EXPECT_EQ(milli("3M"), 3'000'000'000);
  EXPECT_EQ(milli("1G"), 1'000'000'000'000);
  EXPECT_EQ(milli("1T"), 1'000'000'000'000'000);
  EXPECT_EQ(milli("1P"), 1'000'000'000'000'000'000);
  EXPECT_EQ(milli("0"), 0);
  EXPECT_EQ(milli("0Gi"), 0);
  EXPECT_EQ(milli("007"), 7000);
}

TEST(Quantity, BinarySuffixesArePowersOf1024) {
  EXPECT_EQ(milli("1Ki"), 1'024'000);
  EXPECT_EQ(milli("512Mi"), 512LL * 1024 * 1024 * 1000);          // 536,870,912,000
  EXPECT_EQ(milli("16Gi"), 16LL * 1024 * 1024 * 1024 * 1000);     // 17,179,869,184,000
  EXPECT_EQ(milli("1.5Gi"), 1'610'612'736'000);                    // 1.5 x 2^30 x 1000
  EXPECT_EQ(milli("1Ti"), 1'099'511'627'776'000);
  EXPECT_EQ(milli("1Pi"), 1'125'899'906'842'624'000);
  EXPECT_EQ(milli("0.5Ki"), 512'000);
}

TEST(Quantity, DecimalExponents) {
  EXPECT_EQ(milli("1e3"), 1'000'000);
  EXPECT_EQ(milli("1E3"), 1'000'000);
  EXPECT_EQ(milli("12e-3"), 12);
  EXPECT_EQ(milli("1.5e+2"), 150'000);
  EXPECT_EQ(milli("25e-2"), 250);
}

TEST(Quantity, FractionsOfAMilliUnitRoundUpAsMilliValueDoes) {
  EXPECT_EQ(milli("0.1m"), 1);
  EXPECT_EQ(milli("1.0001"), 1001);
  EXPECT_EQ(milli("1e-9"), 1);
  EXPECT_EQ(milli("0.000000000000000001e-100"), 1);
}

TEST(Quantity, ExaAloneIsTheSuffixNotAnExponent) {
  EXPECT_EQ(milli("0.001E"), 1'000'000'000'000'000'000);  // 10^15 units
  EXPECT_EQ(milli("0.001E3"), 1000);                       // 0.001 x 10^3 units
}

TEST(Quantity, LargestValuesFitAndBeyondIsRefused) {
  EXPECT_EQ(milli("9223372036854775807m"), 9'223'372'036'854'775'807);
  EXPECT_EQ(milli("9223372036854775.807"), 9'223'372'036'854'775'807);
  EXPECT_EQ(milli("8Pi"), 8LL * 1'125'899'906'842'624'000);
  for (const char* text : {"9223372036854775808m", "9223372036854776", "9Pi", "1E", "10Ei", "1e17", "1e9999"}) {
    try {
      milli(text);
      FAIL() << text << " should be refused";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("beyond 2^63 - 1"), std::string::npos) << e.what();
    }
  }
}

TEST(Quantity, MalformedValuesAreRefusedNamingTheInputAndText) {
  const char* malformed[] = {"", " 1", "1 ", "1.2.3", ".", "m", "1mi", "1KI", "1ki", "1Kb", "1e", "1e+",
                             "1e3Ki", "1.5x", "0x10", "1,5", "Mi", "1e1.5", "++1", "1Ei2", "inf", "NaN"};
  for (const char* text : malformed) {
    try {
      parse_quantity_milli(text, "pods.csv:3: request.cpu");
      FAIL() << "'" << text << "' should be refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.input(), "pods.csv:3: request.cpu");
      EXPECT_NE(std::string(e.what()).find(std::string("quantity '") + text + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Quantity, NegativeValuesAreRefused) {
  try {
    milli("-1");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos);
  }
}

TEST(Quantity, FormatParsesBackToTheSameAmount) {
  EXPECT_EQ(format_quantity_milli(250), "250m");
  EXPECT_EQ(format_quantity_milli(2000), "2");
  EXPECT_EQ(format_quantity_milli(536'870'912'000), "536870912");
  EXPECT_EQ(format_quantity_milli(1001), "1001m");
  for (std::int64_t v : {0LL, 1LL, 999LL, 1000LL, 1'610'612'736'000LL, 9'223'372'036'854'775'807LL}) {
    EXPECT_EQ(milli(format_quantity_milli(v)), v);
  }
}

TEST(Quantity, ListsGiveEachResourceInMilliUnits) {
  const data::Quantities machine = parse_quantity_list("cpu=4,memory=16Gi,nvidia.com/gpu=500m", "--machine");
  EXPECT_EQ(machine, (data::Quantities{
                         {"cpu", 4000}, {"memory", 16LL * 1024 * 1024 * 1024 * 1000}, {"nvidia.com/gpu", 500}}));
  EXPECT_EQ(quantities_text(machine), "cpu 4, memory 17179869184, nvidia.com/gpu 500m");
}

TEST(Quantity, TheShortResourceIsTheFirstThatDoesNotFit) {
  const data::Quantities machine{{"cpu", 4000}, {"memory", 8000}};
  EXPECT_EQ(short_resource({{"cpu", 4000}, {"memory", 8000}}, machine), "");
  EXPECT_EQ(short_resource({{"cpu", 4001}}, machine), "cpu");
  EXPECT_EQ(short_resource({{"cpu", 1000}, {"memory", 9000}}, machine), "memory");
  EXPECT_EQ(short_resource({{"nvidia.com/gpu", 1}}, machine), "nvidia.com/gpu");
  EXPECT_EQ(short_resource({{"nvidia.com/gpu", 0}}, machine), "");
}

TEST(Quantity, MalformedListsAreRefusedNamingTheOptionAndPart) {
  auto refused = [](const std::string& text, const std::string& expected) {
    try {
      parse_quantity_list(text, "--local-capacity");
      ADD_FAILURE() << text << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused("", "--local-capacity: expected NAME=QUANTITY");
  refused("cpu=2,,memory=1Gi", "--local-capacity 'cpu=2,,memory=1Gi': '': expected NAME=QUANTITY");
  refused("cpu", "'cpu': expected NAME=QUANTITY");
  refused("=2", "'=2': expected NAME=QUANTITY");
  refused("cpu=2,cpu=3", "resource 'cpu' is given twice");
  refused("cpu=2x", "--local-capacity: cpu: quantity '2x'");
}

}  // namespace
}  // namespace millrace::data
