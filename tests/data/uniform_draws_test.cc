// The portable draws: values fixed by the engine's standard output, inside their bounds, and
// spread evenly over them.
#include "data/uniform_draws.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <random>

#include <gtest/gtest.h>

namespace millrace::data {
namespace {

TEST(UniformDraws, UnitDrawIsTheEnginesTopBitsCentredInTheirStep) {
  // The standard fixes the 10,000th output of a default-constructed mt19937_64.
  std::mt19937_64 engine;
  engine.discard(9999);
  const std::uint64_t tenth_thousand = 9981545732273789042ULL;
  EXPECT_EQ(unit_draw(engine), (static_cast<double>(tenth_thousand >> 11) + 0.5) / 9007199254740992.0);
}

TEST(UniformDraws, UnitDrawsStayInsideTheOpenUnitInterval) {
  std::mt19937_64 engine(7);
  for (int i = 0; i < 10000; ++i) {
    const double u = unit_draw(engine);
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(UniformDraws, IntegerDrawsCoverBothBoundsEvenly) {
  std::mt19937_64 engine(11);
  std::map<std::int64_t, int> seen;
  const int draws = 60000;
  for (int i = 0; i < draws; ++i) ++seen[integer_draw(engine, -3, 8)];
  ASSERT_EQ(seen.size(), 12u);
  EXPECT_EQ(seen.begin()->first, -3);
  EXPECT_EQ(seen.rbegin()->first, 8);
  // 5,000 expected each; a binomial's standard deviation is about 68, so 5 of them is 340.
  for (const auto& [value, count] : seen) EXPECT_NEAR(count, draws / 12, 340) << value;
}

TEST(UniformDraws, IntegerDrawOfOneValueIsThatValue) {
  std::mt19937_64 engine(3);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(integer_draw(engine, 42, 42), 42);
}

TEST(UniformDraws, RealDrawsStayInsideTheirInterval) {
  std::mt19937_64 engine(5);
  double sum = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    const double x = real_draw(engine, -2.0, 6.0);
    ASSERT_GE(x, -2.0);
    ASSERT_LT(x, 6.0);
    sum += x;
  }
  // Mean 2, standard deviation of the mean 8 / sqrt(12 * 20000) ~ 0.016.
  EXPECT_NEAR(sum / draws, 2.0, 0.08);
}

}  // namespace
}  // namespace millrace::data
