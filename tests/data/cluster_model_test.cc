#include "data/cluster_model.h"

#include <fstream>
#include <functional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/empirical_quantiles.h"
#include "data/error.h"
#include "data/model_file.h"
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
              AllOf(HasSubstr("cluster.startup.pooled.quantiles_us[0]"), HasSubstr(">= 0")));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.at("placement_residual").at("pooled").at("quantiles_us")[50] = 0; }),
              AllOf(HasSubstr("cluster.placement_residual.pooled.quantiles_us[50]"), HasSubstr("non-decreasing")));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.erase("worker_gap"); }),
              AllOf(HasSubstr("cluster.worker_gap"), HasSubstr("missing")));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.at("failures").at("pooled").at("reasons")[0]["probability"] = 1.5; }),
              HasSubstr("cluster.failures.pooled.reasons[0].probability: must be a number in [0, 1]"));
  EXPECT_THAT(cluster_error([](nlohmann::json& c) { c.at("placement_residual").at("by_type")["gpu"]["observations"] = "two"; }),
              HasSubstr("cluster.placement_residual.by_type.gpu.observations"));
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
