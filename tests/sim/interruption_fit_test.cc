// Spot interruption rates fitted from recorded node departures (sim/interruption_fit.h): a
// generated recording of spot nodes with exponential lives of a known rate gives it back within
// 10 %, equal to the maximum-likelihood estimate computed here (departures over watched node-hours)
// with its interval around it; a recording without spot nodes, or with none seen to leave, says
// why; the model file keeps the rates (and refuses broken ones); and a simulation takes a spot
// pool's rate from the fitted model when its file types none, a typed one winning.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cluster_model.h"
#include "data/error.h"
#include "data/uniform_draws.h"
#include "sim/interruption_fit.h"
#include "sim/simulation.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kHour = data::kMicrosPerHour;

// A 24 h recording (one attempt ending at 24 h): `spot_nodes` spot nodes of pool "cheap" ready at
// uniform times in the first 12 h (one in ten there at the start instead), each living an
// exponential time of `rate` per hour (departed when that ends within the 24 h), and on-demand
// nodes of pool "steady" that also leave (never counted).
Recording spot_recording(int spot_nodes, double rate, std::uint64_t seed) {
  Recording r;
  r.name = "generated";
  data::Attempt end;
  end.item_id = "a";
  end.start = 0;
  end.end = 24 * kHour;
  r.attempts.push_back(end);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < spot_nodes; ++i) {
    data::NodeArrival n;
    n.node = "spot-" + std::to_string(i);
    n.pool = "cheap";
    n.capacity_type = "spot";
    n.present_at_start = i % 10 == 0;
    const data::Micros from = n.present_at_start ? 0 : static_cast<data::Micros>(data::unit_draw(rng) * 12 * kHour);
    if (!n.present_at_start) n.ready = from;
    const auto life = static_cast<data::Micros>(-std::log(data::unit_draw(rng)) / rate * static_cast<double>(kHour));
    if (from + life < 24 * kHour) n.departed = from + life;
    r.node_arrivals.push_back(n);
  }
  for (int i = 0; i < 20; ++i) {
    data::NodeArrival n;
    n.node = "steady-" + std::to_string(i);
    n.pool = "steady";
    n.capacity_type = "on-demand";
    n.ready = i * kHour;
    n.departed = (i + 1) * kHour;
    r.node_arrivals.push_back(n);
  }
  return r;
}

TEST(InterruptionFit, RecoversAKnownRateWithinTenPercentAsTheMaximumLikelihoodEstimate) {
  const double rate = 0.2;
  const Recording r = spot_recording(2000, rate, 11);
  double departures = 0, watched_hours = 0;
  for (const data::NodeArrival& n : r.node_arrivals) {
    if (n.capacity_type != "spot") continue;
    const data::Micros from = n.present_at_start ? 0 : *n.ready;
    const data::Micros to = n.departed ? *n.departed : 24 * kHour;
    departures += n.departed ? 1 : 0;
    watched_hours += static_cast<double>(to - from) / static_cast<double>(kHour);
  }
  const data::SpotInterruptions fit = fit_interruptions({r});
  ASSERT_TRUE(fit.identified()) << fit.unidentified;
  EXPECT_EQ(fit.pooled.nodes, 2000u);
  EXPECT_EQ(static_cast<double>(fit.pooled.departures), departures);
  EXPECT_NEAR(fit.pooled.node_hours, watched_hours, 1e-6);
  EXPECT_NEAR(fit.pooled.rate, departures / watched_hours, 1e-12);
  EXPECT_NEAR(fit.pooled.rate, rate, 0.1 * rate);
  EXPECT_LT(fit.pooled.low, fit.pooled.rate);
  EXPECT_GT(fit.pooled.high, fit.pooled.rate);
  EXPECT_LT(fit.pooled.low, rate);
  EXPECT_GT(fit.pooled.high, rate);
  ASSERT_EQ(fit.by_pool.size(), 1u);  // the on-demand pool's departures are none of a spot rate
  EXPECT_EQ(fit.by_pool.at("cheap"), fit.pooled);
  EXPECT_EQ(fit.rate_of("cheap"), fit.pooled.rate);
  EXPECT_EQ(fit.rate_of("unknown-pool"), fit.pooled.rate);
}

// Garwood's interval for k departures over T node-hours: [chi2(0.05; 2k) / 2T, chi2(0.95; 2k+2) /
// 2T]. For k = 1 over 10 h the quantiles are chi2(0.05; 2) = -2 ln 0.95 = 0.102587 and
// chi2(0.95; 4) = 9.487729.
TEST(InterruptionFit, TheIntervalIsGarwoodsExactPoissonInterval) {
  Recording r;
  r.name = "one";
  data::NodeArrival n{"s", "cheap", 0, 0, 10 * kHour, "spot", false};
  r.node_arrivals.push_back(n);
  const data::SpotInterruptions fit = fit_interruptions({r});
  ASSERT_TRUE(fit.identified());
  EXPECT_NEAR(fit.pooled.rate, 0.1, 1e-12);
  EXPECT_NEAR(fit.pooled.low, 0.102587 / 20, 1e-6);
  EXPECT_NEAR(fit.pooled.high, 9.487729 / 20, 1e-6);
}

TEST(InterruptionFit, SaysWhyWithoutSpotNodesOrWithoutDepartures) {
  Recording none = spot_recording(0, 1, 1);
  none.node_arrivals_unrecorded = "the API server refused to list or watch nodes (HTTP 403 Forbidden)";
  const data::SpotInterruptions without = fit_interruptions({none});
  EXPECT_FALSE(without.identified());
  EXPECT_NE(without.unidentified.find("no spot node recorded"), std::string::npos) << without.unidentified;
  EXPECT_NE(without.unidentified.find("run generated: the API server refused"), std::string::npos);
  EXPECT_FALSE(without.rate_of("cheap").has_value());

  Recording quiet;
  quiet.name = "quiet";
  quiet.node_arrivals.push_back({"s", "cheap", 0, 0, std::nullopt, "spot", false});
  data::Attempt end;
  end.end = 10 * kHour;
  quiet.attempts.push_back(end);
  const data::SpotInterruptions silent = fit_interruptions({quiet});
  EXPECT_FALSE(silent.identified());
  // -ln 0.05 / 10 h = 0.2996 per node-hour
  EXPECT_EQ(silent.unidentified, "1 spot node watched over 10.00 node-hours, none seen to leave (the rate is below "
                                 "0.3 per node-hour at 95 %)");
}

TEST(InterruptionFit, TheModelFileKeepsTheRatesAndRefusesBrokenOnes) {
  data::ClusterModel model;
  model.interruptions = fit_interruptions({spot_recording(200, 0.5, 3)});
  const nlohmann::json json = model.to_json();
  EXPECT_EQ(data::ClusterModel::from_json(json, "m.json"), model);
  nlohmann::json older = json;
  older.erase("interruptions");
  EXPECT_FALSE(data::ClusterModel::from_json(older, "m.json").interruptions.identified());
  nlohmann::json negative = json;
  negative["interruptions"]["pooled"]["rate_per_node_hour"] = -1;
  try {
    data::ClusterModel::from_json(negative, "m.json");
    ADD_FAILURE() << "accepted a negative rate";
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("m.json: cluster.interruptions.pooled.rate_per_node_hour: must be a finite "
                                         "number from 0, not -1"),
              std::string::npos)
        << e.what();
  }
  nlohmann::json outside = json;
  outside["interruptions"]["pooled"]["high"] = 0;
  EXPECT_THROW(data::ClusterModel::from_json(outside, "m.json"), data::Error);
}

SimulationConfig spot_pool_config(std::optional<double> typed, std::shared_ptr<const data::ClusterModel> fitted) {
  SimulationConfig config;
  NodePool pool{"cheap", 2, 0, 2, 0, {{"cpu", 1000}}};
  pool.spot = true;
  pool.interruption_rate = typed;
  config.cluster.pools.pools = {pool};
  config.cluster.fitted = std::move(fitted);
  config.scheduler.policy = "job-per-item";
  config.scheduler.params.max_in_flight = 10;
  return config;
}

TEST(InterruptionFit, ASimulationTakesASpotPoolsRateFromTheFittedModelUnlessTyped) {
  auto model = std::make_shared<data::ClusterModel>();
  model->interruptions = fit_interruptions({spot_recording(2000, 0.2, 5)});
  std::vector<data::WorkItem> items(4);
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i].id = "I" + std::to_string(i);
    items[i].requests = {{"cpu", 1000}};
  }
  const DurationModel ten_minutes = [](const data::WorkItem&) { return 600 * data::kMicrosPerSecond; };
  const SimulationResult fitted = simulate(items, ten_minutes, spot_pool_config(std::nullopt, model));
  EXPECT_EQ(fitted.pools.at(0).interruption_rate.source, "fitted");
  EXPECT_EQ(fitted.pools.at(0).interruption_rate.per_node_hour, model->interruptions.pooled.rate);
  const SimulationResult typed = simulate(items, ten_minutes, spot_pool_config(0.01, model));
  EXPECT_EQ(typed.pools.at(0).interruption_rate.source, "typed");
  EXPECT_EQ(typed.pools.at(0).interruption_rate.per_node_hour, 0.01);
}

}  // namespace
}  // namespace millrace::sim
