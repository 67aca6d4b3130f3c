// The one module numbers are printed through (data/readable_duration.h): human units first,
// exact seconds beside them without ".000", grouped thousands, singular nouns for one.
#include "data/readable_duration.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace millrace::data {
namespace {

TEST(ReadableNumbers, DurationsReadInTheUnitThatFitsThem) {
  EXPECT_EQ(readable_duration(850 * kMicrosPerMilli), "850 ms");
  EXPECT_EQ(readable_duration(0), "0 s");
  EXPECT_EQ(readable_duration(14 * kMicrosPerSecond), "14.0 s");
  EXPECT_EQ(readable_duration(270 * kMicrosPerSecond), "4.5 min");
  EXPECT_EQ(readable_duration(88'627 * kMicrosPerSecond), "24.62 h");
}

TEST(ReadableNumbers, ExactSecondsHaveNoTrailingZerosAndGroupThousands) {
  EXPECT_EQ(exact_seconds(88'627 * kMicrosPerSecond), "88,627 s");
  EXPECT_EQ(exact_seconds(12'345'000), "12.345 s");
  EXPECT_EQ(exact_seconds(250'000), "0.25 s");
  EXPECT_EQ(exact_seconds(0), "0 s");
  EXPECT_EQ(exact_seconds(-500'000), "-0.5 s");
  EXPECT_EQ(exact_seconds(1'999'999), "2 s");  // rounded to the millisecond
}

TEST(ReadableNumbers, DurationTextPutsTheHumanUnitFirst) {
  EXPECT_EQ(duration_text(88'627 * kMicrosPerSecond), "24.62 h (88,627 s)");
  EXPECT_EQ(duration_text(270 * kMicrosPerSecond), "4.5 min (270 s)");
  EXPECT_EQ(duration_text(11 * kMicrosPerSecond), "11 s");
  EXPECT_EQ(duration_text(12'345'000), "12.345 s");
  EXPECT_EQ(duration_text(850 * kMicrosPerMilli), "850 ms");
  EXPECT_EQ(duration_text(0), "0 s");
}

TEST(ReadableNumbers, ABandReadsInTheUnitOfItsLargerEnd) {
  EXPECT_EQ(readable_band(50 * 60 * kMicrosPerSecond, 2 * kMicrosPerHour), "0.83-2.00 h");
  EXPECT_EQ(readable_band(12 * kMicrosPerSecond, 14'500'000), "12.0-14.5 s");
}

TEST(ReadableNumbers, CountsAreGroupedAndSingularForOne) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(3396), "3,396");
  EXPECT_EQ(grouped(54'326'463), "54,326,463");
  EXPECT_EQ(grouped(-9536), "-9,536");
  EXPECT_EQ(grouped(INT64_MIN), "-9,223,372,036,854,775,808");
  EXPECT_EQ(counted(1, "item"), "1 item");
  EXPECT_EQ(counted(0, "item"), "0 items");
  EXPECT_EQ(counted(3396, "range"), "3,396 ranges");
  EXPECT_EQ(counted(2, "replica"), "2 replicas");
  EXPECT_EQ(counted(2, "child", "children"), "2 children");
}

TEST(ReadableNumbers, TableNumbersHaveTheDigitsTheyNeed) {
  EXPECT_EQ(readable_number(4726.8), "4,727");
  EXPECT_EQ(readable_number(12.5), "12.50");
  EXPECT_EQ(readable_number(0.00068), "0.00068");
  EXPECT_EQ(readable_number(0), "0");
}

TEST(ReadableNumbers, NodeTimeNeverReadsAsZeroOrAsAFractionOfAnHour) {
  EXPECT_EQ(node_time(4727.4), "4,727 node-hours");
  EXPECT_EQ(node_time(12.5), "12.50 node-hours");
  EXPECT_EQ(node_time(0.000541059), "1.9 node-seconds");
  EXPECT_EQ(node_time(0.5, "slot"), "30.0 slot-minutes");
}

}  // namespace
}  // namespace millrace::data
