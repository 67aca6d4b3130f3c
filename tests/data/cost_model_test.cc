#include "data/cost_model.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/cost_model_fit.h"
#include "data/error.h"
#include "tests/support/scratch_dir.h"

namespace millrace::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

CostModel three_bins() {
  return CostModel({{{0, 10}, 5, 1}, {{10, 10}, 7, 3}, {{20, 5}, 11, 0}}, "ledgers", "test");
}

TEST(CostModel, PredictsStartupOfTheFirstUnitsBinPlusWorkIntegral) {
  const CostModel m = three_bins();
  EXPECT_DOUBLE_EQ(m.cost({2, 3}), 5 + 3);
  EXPECT_DOUBLE_EQ(m.cost({8, 4}), 5 + 2 * 1 + 2 * 3);
  EXPECT_DOUBLE_EQ(m.cost({12, 13}), 7 + 8 * 3 + 5 * 0);
  EXPECT_EQ(m.predict({0, 25}), 5 + 10 + 30);
}

TEST(CostModel, ExtrapolatesTheNearestBinOutsideItsSpan) {
  const CostModel m = three_bins();
  EXPECT_DOUBLE_EQ(m.cost({-4, 4}), 5 + 4);
  EXPECT_DOUBLE_EQ(m.cost({24, 10}), 11 + 0);
  EXPECT_DOUBLE_EQ(m.startup(1000), 11);
}

TEST(CostModel, FurthestEndIsTheLargestEndWithinTheBudget) {
  // Equal-width bins (direct lookup) and unequal ones (binary search).
  for (const CostModel& m : {three_bins(), CostModel({{{0, 10}, 5, 1}, {{10, 3}, 7, 3}, {{13, 12}, 11, 0}})}) {
    for (std::int64_t from = -3; from < 26; ++from) {
      for (double budget : {0.0, 0.5, 1.0, 4.0, 12.0, 29.0, 40.0, 100.0}) {
        std::int64_t expected = from;
        for (std::int64_t end = from; end <= 30; ++end) {
          if (m.work(from, end) <= budget) expected = end;
        }
        EXPECT_EQ(m.furthest_end(from, budget, 30), expected) << "from " << from << " budget " << budget;
      }
    }
  }
}

TEST(CostModel, FromProfileUsesTheDensitiesAndOneStartup) {
  const CostProfile profile{"eth", "blocks", "series", {{{0, 100}, 2.5}, {{100, 50}, 4}}};
  const CostModel m = CostModel::from_profile(profile, 1000);
  EXPECT_DOUBLE_EQ(m.cost({90, 20}), 1000 + 10 * 2.5 + 10 * 4);
  EXPECT_EQ(m.profile("eth"), (CostProfile{"eth", "blocks", "series", profile.bins}));
}

TEST(CostModel, SavesAndLoadsJsonUnchanged) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  three_bins().save(path);
  const CostModel loaded = CostModel::load(path);
  EXPECT_EQ(loaded.bins(), three_bins().bins());
  EXPECT_EQ(loaded.units(), "ledgers");
}

class MalformedModel : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(MalformedModel, IsRejectedNamingTheFileAndTheProblem) {
  const test_support::ScratchDir scratch;  // one per case: ctest runs the cases as parallel processes
  const std::string path = scratch.file("model.json");
  std::ofstream(path) << GetParam().first;
  try {
    CostModel::load(path);
    FAIL() << "accepted " << GetParam().first;
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path);
    EXPECT_THAT(e.problem(), HasSubstr(GetParam().second));
  }
}

const std::string kHead = R"({"format":"millrace-cost-model","version":1,"units":"u","source":"s",)";

INSTANTIATE_TEST_SUITE_P(
    Files, MalformedModel,
    ::testing::Values(
        std::make_pair(std::string("{not json"), std::string("malformed JSON")),
        std::make_pair(std::string(R"({"format":"other","version":1})"), std::string("not a millrace cost model")),
        std::make_pair(kHead + R"("nobins":[]})", std::string("missing key 'bins'")),
        std::make_pair(kHead + R"("bins":[]})", std::string("at least one bin")),
        std::make_pair(kHead + R"("bins":[{"first":0,"startup_micros":1,"micros_per_unit":1}]})",
                       std::string("bin 0: missing key 'count'")),
        std::make_pair(kHead + R"("bins":[{"first":0,"count":"ten","startup_micros":1,"micros_per_unit":1}]})",
                       std::string("bin 0: key 'count' has type string")),
        std::make_pair(kHead + R"("bins":[{"first":0,"count":10,"startup_micros":1,"micros_per_unit":-2}]})",
                       std::string("bin 0: negative or non-finite work density")),
        std::make_pair(kHead + R"("bins":[{"first":0,"count":10,"startup_micros":-1,"micros_per_unit":2}]})",
                       std::string("negative or non-finite start-up")),
        std::make_pair(kHead + R"("bins":[{"first":0,"count":10,"startup_micros":1,"micros_per_unit":1e300}]})",
                       std::string("bin 0: micros_per_unit 1e+300 is implausible")),
        std::make_pair(kHead + R"("bins":[{"first":0,"count":10,"startup_micros":1,"micros_per_unit":1},
                                         {"first":10,"count":1000000000000,"startup_micros":1,"micros_per_unit":2e6}]})",
                       std::string("bin 1: micros_per_unit 2e+06 is implausible: the work over the model's span reaches 2e+18")),
        std::make_pair(kHead + R"("bins":[{"first":0,"count":10,"startup_micros":2e18,"micros_per_unit":1}]})",
                       std::string("bin 0: startup_micros 2e+18 is implausible")),
        std::make_pair(kHead + R"("bins":[{"first":0,"count":10,"startup_micros":6e17,"micros_per_unit":1},
                                         {"first":10,"count":1000000,"startup_micros":0,"micros_per_unit":5e11}]})",
                       std::string("start-up plus the work over the model's span reaches 1.1e+18")),
        std::make_pair(kHead + R"("bins":[{"first":9223372036854775000,"count":10000,"startup_micros":1,"micros_per_unit":1}]})",
                       std::string("bin 0: first 9223372036854775000 + count 10000 overflows")),
        std::make_pair(kHead + R"("bins":[{"first":10,"count":10,"startup_micros":1,"micros_per_unit":1},
                                         {"first":0,"count":10,"startup_micros":1,"micros_per_unit":1}]})",
                       std::string("bin 1: bins must be sorted and contiguous"))),
    [](const auto& info) { return "case" + std::to_string(info.index); });

// Synthetic recordings generated from known coefficients: 4 bins of 25,000 units.
const std::vector<double> kStartup = {5e6, 10e6, 20e6, 30e6};  // micros
const std::vector<double> kDensity = {1000, 4000, 500, 8000};      // micros per unit

CostModel truth() {
  std::vector<CostBin> bins;
  for (int i = 0; i < 4; ++i) bins.push_back({{i * 25'000, 25'000}, kStartup[i], kDensity[i]});
  return CostModel(bins);
}

// A uniform run of `length`-unit ranges over [0, 100000); relative noise uniform with the given
// standard deviation (drawn portably from the top 53 bits).
std::vector<Observation> record(std::int64_t length, double noise, std::mt19937_64& rng, bool with_work_time) {
  const CostModel model = truth();
  std::vector<Observation> out;
  for (std::int64_t first = 0; first < 100'000; first += length) {
    const Range r{first, length};
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const double f = 1.0 + noise * std::sqrt(3.0) * (2 * u - 1);
    Observation o{r, static_cast<Micros>(model.cost(r) * f), std::nullopt};
    if (with_work_time) o.work_time = static_cast<Micros>(model.work(r.first, r.end()) * f);
    out.push_back(o);
  }
  return out;
}

FitOptions four_bins() {
  FitOptions options;
  options.bins = 4;
  options.folds = 5;
  return options;
}

void expect_recovered(const CostModel& model, double tolerance) {
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(model.bins()[i].startup_micros, kStartup[i], tolerance * kStartup[i]) << "bin " << i;
    EXPECT_NEAR(model.bins()[i].micros_per_unit, kDensity[i], tolerance * kDensity[i]) << "bin " << i;
  }
}

TEST(CostModelFit, RecoversKnownCoefficientsExactlyFromTwoPartitions) {
  std::mt19937_64 rng(1);
  std::vector<Observation> obs = record(1000, 0, rng, false);
  const std::vector<Observation> other = record(2500, 0, rng, false);
  obs.insert(obs.end(), other.begin(), other.end());
  const FitReport report = fit_cost_model(obs, four_bins(), "synthetic");
  expect_recovered(report.model, 1e-6);  // noise-free: within 1 part per million
  EXPECT_TRUE(report.split_identifiable) << report.identifiability_note;
  EXPECT_GT(report.joint.r2, 0.999999);
}

// Bin 2's work (500 us/unit over 500 units) is 1/80 of its start-up, so 1% noise on durations
// leaves its density uncertain by several percent.
TEST(CostModelFit, RecoversKnownCoefficientsWithinTenPercentUnderOnePercentNoise) {
  std::mt19937_64 rng(2);
  std::vector<Observation> obs = record(500, 0.01, rng, false);
  const std::vector<Observation> other = record(2000, 0.01, rng, false);
  obs.insert(obs.end(), other.begin(), other.end());
  const FitReport report = fit_cost_model(obs, four_bins(), "synthetic");
  expect_recovered(report.model, 0.10);
  EXPECT_GT(report.joint.cv_r2, 0.95);
}

TEST(CostModelFit, ReportsNonIdentifiabilityWhenAllRunsUsedTheSamePartition) {
  std::mt19937_64 rng(3);
  std::vector<Observation> obs = record(1000, 0, rng, false);
  const std::vector<Observation> again = record(1000, 0, rng, false);
  obs.insert(obs.end(), again.begin(), again.end());
  const FitReport report = fit_cost_model(obs, four_bins(), "synthetic");
  EXPECT_FALSE(report.split_identifiable);
  EXPECT_GT(report.startup_share_sd, 0.025);
  EXPECT_THAT(report.identifiability_note, AllOf(HasSubstr("NOT identifiable"), HasSubstr("same length (1000)")));
  EXPECT_THAT(format_fit_report(report), HasSubstr("NOT identifiable"));
  // The recorded ranges are still predicted exactly.
  EXPECT_GT(report.joint.r2, 0.999999);
}

TEST(CostModelFit, WorkTimeSeparatesStartupFromWorkOnASinglePartition) {
  std::mt19937_64 rng(4);
  const FitReport report = fit_cost_model(record(1000, 0, rng, true), four_bins(), "synthetic");
  ASSERT_TRUE(report.separate.has_value());
  EXPECT_EQ(report.method, "separate");
  expect_recovered(report.model, 1e-6);
  EXPECT_GT(*report.work_part_r2, 0.999999);
  EXPECT_GT(*report.rest_part_r2, 0.999999);
}

TEST(CostModelFit, EqualInputsGiveIdenticalReports) {
  std::mt19937_64 a(5), b(5);
  const FitReport ra = fit_cost_model(record(700, 0.05, a, true), four_bins(), "synthetic");
  const FitReport rb = fit_cost_model(record(700, 0.05, b, true), four_bins(), "synthetic");
  EXPECT_EQ(format_fit_report(ra), format_fit_report(rb));
  EXPECT_EQ(ra.joint.cv_rmse_s, rb.joint.cv_rmse_s);
}

TEST(CostModelFit, RejectsTooFewObservationsNamingTheInput) {
  std::mt19937_64 rng(6);
  const std::vector<Observation> few = record(25'000, 0, rng, false);
  try {
    fit_cost_model(few, four_bins(), "store.db runs 1");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "store.db runs 1");
    EXPECT_THAT(e.problem(), HasSubstr("too few recorded ranges"));
  }
}

}  // namespace
}  // namespace millrace::data
