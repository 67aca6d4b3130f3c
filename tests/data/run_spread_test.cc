// How whole runs differ (data/run_spread.h): a new run's factor, checked against Student's t
// worked out here from the factors' logarithms, and the model file's form of it.
#include "data/run_spread.h"

#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/error.h"

namespace millrace::data {
namespace {

// Student's t with 2 degrees of freedom has a closed form: its p-quantile is
// (2p - 1) / sqrt(2 p (1 - p)).
double t2_quantile(double p) { return (2 * p - 1) / std::sqrt(2 * p * (1 - p)); }

TEST(RunSpread, ANewRunsFactorIsStudentsTThroughTheFittedRunsWidenedForARunNotAmongThem) {
  const RunSpread spread{{0.9, 1.0, 1.2}, ""};
  ASSERT_TRUE(spread.identified());
  const double logs[] = {std::log(0.9), std::log(1.0), std::log(1.2)};
  const double mean = (logs[0] + logs[1] + logs[2]) / 3;
  double squares = 0;
  for (double l : logs) squares += (l - mean) * (l - mean);
  const double sd = std::sqrt(squares / 2) * std::sqrt(1 + 1.0 / 3);
  EXPECT_NEAR(spread.log_sd(), sd, 1e-12);
  EXPECT_NEAR(spread.median(), std::exp(mean), 1e-12);
  EXPECT_NEAR(spread.draw(0.5), std::exp(mean), 1e-12);
  EXPECT_NEAR(spread.draw(0.9), std::exp(mean + t2_quantile(0.9) * sd), 1e-9);
  EXPECT_NEAR(spread.draw(0.1), std::exp(mean + t2_quantile(0.1) * sd), 1e-9);
  // The tails beyond 0.5% are taken at them.
  EXPECT_NEAR(spread.draw(1e-12), std::exp(mean + t2_quantile(0.005) * sd), 1e-9);
  EXPECT_NEAR(spread.draw(1 - 1e-12), std::exp(mean + t2_quantile(0.995) * sd), 1e-9);
}

TEST(RunSpread, FewerThanThreeRunsShowNothingAndDrawNothing) {
  for (const RunSpread& few : {RunSpread{{1.3}, ""}, RunSpread{{0.9, 1.1}, ""}, RunSpread{}}) {
    EXPECT_FALSE(few.identified());
    EXPECT_EQ(few.log_sd(), 0);
    EXPECT_EQ(few.median(), 1);
    EXPECT_EQ(few.draw(0.99), 1);
  }
}

TEST(RunSpread, RoundTripsAndRefusesAFactorThatIsNoPositiveNumber) {
  const RunSpread spread{{0.95, 1.0, 1.05}, ""};
  EXPECT_EQ(RunSpread::from_json(spread.to_json(), "m.json"), spread);
  for (const char* bad : {R"([1.0, 0])", R"([1.0, -2])", R"([1.0, "fast"])", R"({"a": 1})"}) {
    SCOPED_TRACE(bad);
    try {
      RunSpread::from_json(nlohmann::json::parse(bad), "m.json");
      FAIL() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.input(), "m.json");
      EXPECT_NE(std::string(e.what()).find("noise.run_factors"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace millrace::data
