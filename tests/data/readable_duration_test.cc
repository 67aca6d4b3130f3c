// The one module numbers are printed through (data/readable_duration.h): human units first,
// exact seconds beside them without ".000", grouped thousands, singular nouns for one.
#include "data/readable_duration.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "data/quantity.h"
#include "data/typed_duration.h"

namespace millrace::data {
namespace {

TEST(ReadableNumbers, DurationsReadInTheUnitThatFitsThem) {
  EXPECT_EQ(readable_duration(850 * kMicrosPerMilli), "850 ms");
  EXPECT_EQ(readable_duration(0), "0 s");
  EXPECT_EQ(readable_duration(14 * kMicrosPerSecond), "14.0 s");
  EXPECT_EQ(readable_duration(270 * kMicrosPerSecond), "4.5 min");
  EXPECT_EQ(readable_duration(88'627 * kMicrosPerSecond), "24.62 h");
}

// A duration quoted back in a message (a target, a default) reads as it would be typed, and
// parses back to the same microseconds: hours when whole or exact to a hundredth.
TEST(ReadableNumbers, TypedDurationsReadInHoursWhenExactAndParseBack) {
  const std::pair<Micros, const char*> cases[] = {
      {24 * kMicrosPerHour, "24h"},          {5 * kMicrosPerHour / 2, "2.5h"},
      {14'040 * kMicrosPerSecond, "3.9h"},   {3'636 * kMicrosPerSecond, "1.01h"},
      {3'601 * kMicrosPerSecond, "3601s"},   {60 * kMicrosPerSecond, "60s"},
      {1'500 * kMicrosPerMilli, "1.5s"}};
  for (const auto& [us, text] : cases) {
    EXPECT_EQ(typed_duration_text(us), text);
    EXPECT_EQ(parse_duration(typed_duration_text(us), "test"), us) << text;
  }
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

// Memory printed as 17179869184 where the user typed 16Gi: bytes read in the largest binary unit
// that divides them, as Kubernetes writes them; other resources, and bytes no unit divides, as
// they are; each parses back to the same amount.
TEST(ReadableNumbers, MemoryReadsInBinaryUnitsAndParsesBack) {
  const std::int64_t gi = 1024LL * 1024 * 1024 * 1000;  // milli-units of a GiB
  EXPECT_EQ(readable_quantity("memory", 16 * gi), "16Gi");
  EXPECT_EQ(readable_quantity("memory", 12 * gi), "12Gi");
  EXPECT_EQ(readable_quantity("memory", 512LL * 1024 * 1024 * 1000), "512Mi");
  EXPECT_EQ(readable_quantity("memory", 1536LL * 1024 * 1000), "1536Ki");
  EXPECT_EQ(readable_quantity("memory", 1'500'000), "1500");
  EXPECT_EQ(readable_quantity("memory", 500), "500m");
  EXPECT_EQ(readable_quantity("memory", 0), "0");
  EXPECT_EQ(readable_quantity("ephemeral-storage", 2 * gi), "2Gi");
  EXPECT_EQ(readable_quantity("hugepages-2Mi", 2LL * 1024 * 1024 * 1000), "2Mi");
  EXPECT_EQ(readable_quantity("cpu", 1'024'000), "1024");
  EXPECT_EQ(readable_quantity("nvidia.com/gpu", 2000), "2");
  for (const std::int64_t v : std::initializer_list<std::int64_t>{1, 1000, 1'024'000, 16 * gi, 1'610'612'736'000,
                                                                   4LL * 1024 * 1024 * gi}) {
    EXPECT_EQ(parse_quantity_milli(readable_quantity("memory", v), "test"), v) << v;
  }
  EXPECT_EQ(readable_quantities({{"cpu", 4000}, {"memory", 16 * gi}, {"nvidia.com/gpu", 500}}),
            "cpu 4, memory 16Gi, nvidia.com/gpu 500m");
}

}  // namespace
}  // namespace millrace::data
