#include "data/cluster_model.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/checked_numbers.h"
#include "data/cost_model.h"
#include "data/duration_noise.h"
#include "data/empirical_quantiles.h"
#include "data/error.h"
#include "data/model_file.h"
#include "data/uniform_draws.h"
#include "tests/support/scratch_dir.h"

namespace millrace::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// 1..1000 seconds in microseconds, shuffled: its p-quantile by linear interpolation between order
// statistics is 1 s + p * 999 s.
std::vector<double> one_to_a_thousand_seconds() {
  std::vector<double> values;
  for (int i = 1000; i >= 1; --i) values.push_back(i * 1e6);
  return values;
}

ClusterModel fitted_example() {
  ClusterModel m;
  m.source = "run pods-1";
  m.capacity = "job-per-item on 8 slots (peak recorded)";
  m.placement.pooled = EmpiricalQuantiles::of(one_to_a_thousand_seconds());
  m.placement.by_type["gpu"] = EmpiricalQuantiles::of({5e6, 7e6});
  m.startup.pooled = EmpiricalQuantiles::of({2e6});
  m.failures.pooled.attempts = 200;
  m.failures.pooled.modes.push_back({"exit", 137, 4, 0.02, EmpiricalQuantiles::of({0.1, 0.5, 0.9, 1.0})});
  m.failures.unidentified = "";
  m.worker_gap.unidentified = "no pool workers recorded";
  m.job_overhead.pooled = EmpiricalQuantiles::of({30e6, 40e6});
  m.provisioning.unidentified = "no node arrivals recorded";
  return m;
}

TEST(EmpiricalQuantiles, KnotsAreEveryWholePercentileOfTheObservations) {
  const EmpiricalQuantiles q = EmpiricalQuantiles::of(one_to_a_thousand_seconds());
  ASSERT_EQ(q.knots.size(), 101u);
  EXPECT_EQ(q.observations, 1000u);
  EXPECT_DOUBLE_EQ(q.quantile(0.0), 1e6);
  EXPECT_NEAR(q.quantile(0.5), 1e6 + 0.5 * 999e6, 1);
  EXPECT_NEAR(q.quantile(0.9), 1e6 + 0.9 * 999e6, 1);
  EXPECT_NEAR(q.quantile(0.99), 1e6 + 0.99 * 999e6, 1);
  EXPECT_DOUBLE_EQ(q.quantile(1.0), 1000e6);
  EXPECT_TRUE(EmpiricalQuantiles::of({}).empty());
  EXPECT_EQ(EmpiricalQuantiles::of({}).quantile(0.5), 0);
}

// The maximum-likelihood masses below are worked out by hand: each observation contributes the
// probability of the innermost intervals it covers, and the product is maximised.
TEST(EmpiricalQuantiles, IntervalCensoredValuesPutTheirProbabilityWhereTheLikelihoodIsHighest) {
  // Exact 1 and 3, and one value in [2, 4]: only 3 lies inside it, so the likelihood is
  // p1 * p3 * p3, highest at p1 = 1/3, p3 = 2/3.
  const EmpiricalQuantiles q = EmpiricalQuantiles::of_interval_censored({{1, 1}, {3, 3}, {2, 4}});
  EXPECT_EQ(q.observations, 3u);
  ASSERT_EQ(q.knots.size(), 101u);
  EXPECT_DOUBLE_EQ(q.knots[33], 1);
  EXPECT_DOUBLE_EQ(q.knots[34], 3);
  EXPECT_DOUBLE_EQ(q.knots[100], 3);

  // Exact 5, and values in [0, 2] and [1, 3]: both cover the innermost interval [1, 2], which
  // takes 2/3, spread evenly across it; 5 takes 1/3.
  const EmpiricalQuantiles spread = EmpiricalQuantiles::of_interval_censored({{5, 5}, {0, 2}, {1, 3}});
  EXPECT_DOUBLE_EQ(spread.knots[0], 1);
  EXPECT_NEAR(spread.knots[50], 1.75, 1e-6);
  EXPECT_NEAR(spread.knots[66], 1.99, 1e-6);
  EXPECT_DOUBLE_EQ(spread.knots[67], 5);
}

TEST(EmpiricalQuantiles, ValuesBoundedOnlyFromAboveGetTheReverseKaplanMeierEstimate) {
  // Exact 2, 4, 6 and one value at most 5. Kaplan-Meier for left-censored data: F(6-) = 1 - 1/4
  // (4 observations at most 6), F(4-) = 3/4 x (1 - 1/2) (2 at most 4): masses 3/8, 3/8, 1/4.
  const EmpiricalQuantiles q = EmpiricalQuantiles::of_interval_censored({{2, 2}, {4, 4}, {6, 6}, {0, 5}});
  EXPECT_DOUBLE_EQ(q.knots[37], 2);
  EXPECT_DOUBLE_EQ(q.knots[38], 4);
  EXPECT_DOUBLE_EQ(q.knots[75], 4);
  EXPECT_DOUBLE_EQ(q.knots[76], 6);
}

TEST(EmpiricalQuantiles, RecoversADistributionFromValuesMostlySeenAsIntervals) {
  // 3000 values uniform in [10, 50]; 30% seen exactly, the others only within an interval
  // reaching up to 20 below and 20 above them (drawn apart from the value, and clipped at 0).
  std::mt19937_64 rng(29);
  std::vector<double> truth;
  std::vector<CensoredValue> seen;
  for (int i = 0; i < 3000; ++i) {
    const double v = real_draw(rng, 10, 50);
    truth.push_back(v);
    if (real_draw(rng, 0, 1) < 0.3) {
      seen.push_back({v, v});
    } else {
      const double below = real_draw(rng, 0, 20), above = real_draw(rng, 0, 20);
      seen.push_back({std::max(0.0, v - below), v + above});
    }
  }
  const EmpiricalQuantiles fitted = EmpiricalQuantiles::of_interval_censored(seen);
  const EmpiricalQuantiles reference = EmpiricalQuantiles::of(truth);
  for (double p : {0.1, 0.5, 0.9}) {
    EXPECT_NEAR(fitted.quantile(p), reference.quantile(p), 0.05 * reference.quantile(p)) << "p" << 100 * p;
  }
  EXPECT_TRUE(EmpiricalQuantiles::of_interval_censored({}).empty());
}

TEST(EmpiricalQuantiles, IntervalsThatAreNoIntervalsAreLeftOut) {
  const double inf = std::numeric_limits<double>::infinity();
  const EmpiricalQuantiles q =
      EmpiricalQuantiles::of_interval_censored({{5, 3}, {0, inf}, {std::nan(""), 1}, {2, 2}, {4, 4}});
  EXPECT_EQ(q.observations, 2u);
  EXPECT_DOUBLE_EQ(q.quantile(0), 2);
  EXPECT_DOUBLE_EQ(q.quantile(1), 4);
  EXPECT_TRUE(EmpiricalQuantiles::of_interval_censored({{5, 3}}).empty());
}

TEST(ClusterModel, DrawsATypesOwnQuantilesElseThePooledOnes) {
  const ClusterModel m = fitted_example();
  EXPECT_EQ(m.placement.draw("gpu", 0.5), 6'000'000);
  EXPECT_EQ(m.placement.draw("cpu", 0.5), 500'500'000);
  EXPECT_TRUE(m.placement.identified());
  EXPECT_FALSE(m.worker_gap.identified());
  EXPECT_TRUE(m.failures.identified());
}

TEST(ModelFile, CostAndClusterModelsRoundTripInOneFile) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  const CostModel cost({{{0, 10}, 5, 1}}, "ledgers", "test");
  const ClusterModel cluster = fitted_example();
  write_model_file(path, &cost, &cluster, nlohmann::json{{"folds", 5}});
  EXPECT_EQ(load_cluster_model(path), cluster);
  EXPECT_EQ(CostModel::load(path).predict({0, 10}), cost.predict({0, 10}));
  EXPECT_EQ(read_model_json(path).at("fit").at("folds"), 5);
}

TEST(ModelFile, ACostModelWithoutClusterHasNone) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  CostModel({{{0, 10}, 5, 1}}, "ledgers", "test").save(path);
  EXPECT_EQ(load_cluster_model(path), std::nullopt);
}

TEST(ModelFile, AClusterOnlyFileIsRefusedWhereACostModelIsNeeded) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("cluster.json");
  const ClusterModel cluster = fitted_example();
  write_model_file(path, nullptr, &cluster, nullptr);
  EXPECT_EQ(load_cluster_model(path), cluster);
  try {
    CostModel::load(path);
    FAIL() << "a cluster-only file loaded as a cost model";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("cluster model only"), HasSubstr("no cost model"), HasSubstr("millrace fit")));
  }
}

// The file with its "cluster" section changed by `edit`; the error load_cluster_model throws.
std::string cluster_error(const std::function<void(nlohmann::json&)>& edit) {
  const test_support::ScratchDir scratch("cluster_error");
  const std::string path = scratch.file("model.json");
  nlohmann::json json = {{"format", "millrace-cluster-model"}, {"version", 1}, {"cluster", fitted_example().to_json()}};
  edit(json.at("cluster"));
  std::ofstream(path) << json.dump();
  try {
    load_cluster_model(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path);
    return e.what();
  }
  return "no error";
}

TEST(ModelFile, AMalformedClusterSectionNamesTheField) {
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.at("startup").at("pooled").at("quantiles_us")[0] = -1; }),
              AllOf(HasSubstr("cluster.startup.pooled.quantiles_us[0]"), HasSubstr("from 0 to")));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.at("placement_residual").at("pooled").at("quantiles_us")[50] = 0; }),
              AllOf(HasSubstr("cluster.placement_residual.pooled.quantiles_us[50]"), HasSubstr("non-decreasing")));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.erase("worker_gap"); }),
              AllOf(HasSubstr("cluster.worker_gap"), HasSubstr("missing")));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.at("failures").at("pooled").at("reasons")[0]["probability"] = 1.5; }),
              HasSubstr("cluster.failures.pooled.reasons[0].probability: must be a number in [0, 1]"));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.at("placement_residual").at("by_type")["gpu"]["observations"] = "two"; }),
              HasSubstr("cluster.placement_residual.by_type.gpu.observations"));
}

// Start-up quantiles of 1e19..1e308 acted as zero and 1e18 gave 3e12 s; worker gaps of 1e308 as
// zero: every delay beyond the simulator's clock (2^53 us) is refused by its field, and a
// failure's timing beyond the whole attempt too.
TEST(ModelFile, DelaysBeyondTheSimulatorsClockAreRefusedByField) {
  const std::string clock = "must be a finite number from 0 to 9007199254740992 us (2^53, about 285 years";
  for (const double huge : {1e16, 1e18, 1e19, 1e308}) {
    EXPECT_THAT(cluster_error([&](nlohmann::json& c) { c.at("startup").at("pooled").at("quantiles_us")[100] = huge; }),
                AllOf(HasSubstr("cluster.startup.pooled.quantiles_us[100]"), HasSubstr(clock)))
        << huge;
  }
  EXPECT_THAT(cluster_error([](nlohmann::json& c) {
                nlohmann::json& q = c.at("placement_residual").at("by_type").at("gpu").at("quantiles_us");
                for (auto& knot : q) knot = 1e308;
              }),
              AllOf(HasSubstr("cluster.placement_residual.by_type.gpu.quantiles_us[0]"), HasSubstr(clock)));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) {
                c.at("worker_gap") = {{"pooled", {{"observations", 1}, {"quantiles_us", {1e308}}}},
                                      {"by_type", nlohmann::json::object()}, {"unidentified", ""}};
              }),
              AllOf(HasSubstr("cluster.worker_gap.pooled.quantiles_us[0]"), HasSubstr(clock)));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) {
                c.at("failures").at("pooled").at("reasons")[0].at("timing").at("fractions")[100] = 2;
              }),
              AllOf(HasSubstr("cluster.failures.pooled.reasons[0].timing.fractions[100]"),
                    HasSubstr("from 0 to 1 (the whole attempt)")));
  // The largest delay the clock holds is kept.
  EXPECT_EQ(cluster_error([](nlohmann::json& c) {
              c.at("startup").at("pooled").at("quantiles_us")[100] = 9007199254740992.0;
            }),
            "no error");
}

// A draw held in floating point beyond the clock saturates at its end, never wraps to a
// negative or zero time.
TEST(ClusterModel, ADrawBeyondTheClockSaturates) {
  TypedDelays d;
  d.pooled.observations = 2;
  d.pooled.knots = {1e6, 1e300};
  EXPECT_EQ(d.draw("any", 0.999), kMaxMicros);
  EXPECT_EQ(d.draw("any", 0.0), 1'000'000);
  EXPECT_EQ(saturated_micros(1e19), kMaxMicros);
  EXPECT_EQ(saturated_micros(std::numeric_limits<double>::quiet_NaN()), kMaxMicros);
  EXPECT_EQ(saturated_micros(-5), 0);
  EXPECT_EQ(saturated_micros(2.5e6 + 0.4), 2'500'000);
}

// noise.run_factors of 1e15 or 1e308 made simulate print a makespan of 0.000 s: a noise factor
// that would take the model's costliest range past the simulator's clock is refused by field.
TEST(ModelFile, NoiseFactorsBeyondTheClockAreRefusedByField) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  CostModel model({{{0, 100}, 1e6, 1e4}}, "ledgers", "test");  // costliest range: 2 s
  model.set_noise(DurationNoise({{0, {0.5, 1.0, 2.0}}}));
  nlohmann::json json = model.to_json();
  const auto refusal = [&](const nlohmann::json& edited) -> std::string {
    std::ofstream(path) << edited.dump();
    try {
      CostModel::load(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  for (const double huge : {1e15, 1e308}) {
    nlohmann::json edited = json;
    edited["noise"]["run_factors"] = {1.0, huge, 1.1};
    EXPECT_THAT(refusal(edited), AllOf(HasSubstr("noise.run_factors[1]"),
                                       HasSubstr("times the costliest range over the model's span (2 s) passes "
                                                 "9007199254740992 us")))
        << huge;
  }
  nlohmann::json edited = json;
  edited["noise"]["segments"][0]["quantiles"] = {0.5, 1.0, 1e300};
  EXPECT_THAT(refusal(edited), HasSubstr("noise.segments[0].quantiles[2]"));
  edited = json;
  edited["noise"]["run_factors"] = {0.9, 1.0, 1.1};
  EXPECT_EQ(refusal(edited), "no error");
}

TEST(ModelFile, AFileOfAnotherFormatIsNoModel) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("other.json");
  std::ofstream(path) << R"({"format": "something-else"})";
  try {
    load_cluster_model(path);
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a millrace model file"));
  }
}

}  // namespace
}  // namespace millrace::data
