// What a simulated run costs (sim/run_cost.h), against ground truth computed by hand here: ten
// items of exactly 1.5 h on ten nodes that come up at 0 and go when idle, billed per started
// hour and per second; a fixed pool of workers against a list schedule written here; and prices
// and billing rules in pools files, bad ones refused by file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "data/error.h"
#include "sim/node_pools.h"
#include "sim/simulation.h"
#include "tests/support/scratch_dir.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;
constexpr data::Micros kHour = data::kMicrosPerHour;

std::vector<data::WorkItem> one_cpu_items(int count, data::Micros duration) {
  std::vector<data::WorkItem> items;
  for (int i = 0; i < count; ++i) {
    data::WorkItem& item = items.emplace_back();
    item.id = "item" + std::to_string(i);
    item.requests = {{"cpu", 1000}};
    item.predicted = duration;
  }
  return items;
}

DurationModel predicted() {
  return [](const data::WorkItem& item) { return item.predicted; };
}

// Ten one-CPU nodes up at 0, going as soon as they are idle (min 0, scale-down delay 0), priced
// 1.00 per node-hour under `billing`, a node ordered coming up `provision_delay` later.
SimulationResult on_ten_nodes(const std::string& billing, int items, data::Micros duration,
                              data::Micros provision_delay = 0) {
  SimulationConfig config;
  NodePool pool{"standard", 10, 0, 10, provision_delay, {{"cpu", 1000}}};
  pool.price = data::parse_money("1.00", "test");
  pool.billing = data::parse_billing(billing, "test");
  config.cluster.pools.pools = {pool};
  config.cluster.pools.scale_down_delay = 0;
  config.scheduler.policy = "job-per-item";
  config.scheduler.params.max_in_flight = 100;
  return simulate(one_cpu_items(items, duration), predicted(), config);
}

TEST(RunCost, TenNodesOfOneAndAHalfHoursBilledPerStartedHourCostTwentyAndPerSecondFifteen) {
  // Each node lives 1.5 h: per started hour 2 h x 10 x 1.00 = 20.00; per second 1.5 h x 10 = 15.00.
  const SimulationResult hourly = on_ten_nodes("per-hour", 10, 3 * kHour / 2);
  ASSERT_TRUE(hourly.cost.has_value());
  EXPECT_EQ(data::exact_money(hourly.cost->total), "20.00");
  EXPECT_EQ(hourly.cost->currency, "USD");
  ASSERT_EQ(hourly.cost->pools.size(), 1u);
  EXPECT_EQ(hourly.cost->pools[0].machines, 10);
  EXPECT_DOUBLE_EQ(hourly.cost->pools[0].billed_hours, 20.0);
  EXPECT_EQ(data::exact_money(on_ten_nodes("per-second", 10, 3 * kHour / 2).cost->total), "15.00");
  EXPECT_EQ(data::exact_money(on_ten_nodes("", 10, 3 * kHour / 2).cost->total), "15.00");
  // A 60 s minimum changes nothing for 1.5 h lifetimes...
  EXPECT_EQ(data::exact_money(on_ten_nodes("per-second:60s", 10, 3 * kHour / 2).cost->total), "15.00");
  // ...and bills one 10 s item a minute: 1.00 x 60 / 3600 = 0.016667 (rounded half up), against
  // 10 / 3600 = 0.002778 without it. The nine nodes never used went at 0 and cost nothing.
  EXPECT_EQ(data::exact_money(on_ten_nodes("per-second:60s", 1, 10 * kSecond).cost->total), "0.016667");
  EXPECT_EQ(data::exact_money(on_ten_nodes("per-second", 1, 10 * kSecond).cost->total), "0.002778");
}

// With a scale-down delay of 0 the nodes up at the start take the pods placed at 0 before the idle
// ones go: the ten items run at once on them, none waits for a node ordered (90 s to come up),
// and the run ends at exactly 1.5 h with ten lives of 1.5 h billed.
TEST(RunCost, StartNodesTakeThePodsPlacedAtZeroBeforeTheIdleOnesGo) {
  const SimulationResult r = on_ten_nodes("per-second", 10, 3 * kHour / 2, 90 * kSecond);
  EXPECT_EQ(r.makespan, 3 * kHour / 2);
  EXPECT_EQ(r.waits.max, 0);
  ASSERT_TRUE(r.cost.has_value());
  EXPECT_EQ(r.cost->pools.at(0).machines, 10);
  EXPECT_DOUBLE_EQ(r.cost->pools.at(0).billed_hours, 15.0);
}

TEST(RunCost, TheJsonCarriesTheExactTotalItsCurrencyAndThePools) {
  const SimulationResult r = on_ten_nodes("per-hour", 10, 3 * kHour / 2);
  const nlohmann::json cost = to_json(r, false).at("cost");
  EXPECT_EQ(cost.at("total"), "20.00");
  EXPECT_EQ(cost.at("currency"), "USD");
  EXPECT_EQ(cost.at("pools").at("standard").at("total"), "20.00");
  EXPECT_EQ(cost.at("pools").at("standard").at("machines"), 10);
}

// The makespan of a fixed pool taking items in plan order, each to the worker free first: the
// list schedule, computed the naive way.
data::Micros list_schedule(const std::vector<data::Micros>& durations, int workers) {
  std::vector<data::Micros> free_at(static_cast<std::size_t>(workers), 0);
  for (data::Micros d : durations) {
    auto first = std::min_element(free_at.begin(), free_at.end());
    *first += d;
  }
  return *std::max_element(free_at.begin(), free_at.end());
}

TEST(RunCost, AFixedPoolOfFourWorkersIsBilledFromTheRunsStartToItsEnd) {
  const std::vector<data::Micros> durations = {2 * kHour, kHour, 2 * kHour, 2 * kHour, 90 * 60 * kSecond,
                                               30 * 60 * kSecond, 45 * 60 * kSecond};
  std::vector<data::WorkItem> items;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    data::WorkItem& item = items.emplace_back();
    item.id = "w" + std::to_string(i);
    item.predicted = durations[i];
  }
  const data::Micros makespan = list_schedule(durations, 4);
  // By hand: 2 h, 1 h, 2 h, 2 h at 0; 1.5 h after the 1 h; 30 min and 45 min after two 2 h ones.
  ASSERT_EQ(makespan, 2 * kHour + 45 * 60 * kSecond);
  SimulationConfig config;
  config.cluster.nodes = 4;
  config.scheduler.policy = "fixed-pool";
  config.scheduler.params.workers = config.scheduler.params.max_in_flight = 4;
  config.pricing.worker_price = data::parse_money("0.40", "test");
  config.pricing.currency = "EUR";
  const SimulationResult per_second = simulate(items, predicted(), config);
  EXPECT_EQ(per_second.makespan, makespan);
  // 4 workers x 2.75 h x 0.40 = 4.40; per started hour 4 x 3 h x 0.40 = 4.80.
  EXPECT_EQ(data::exact_money(per_second.cost->total), "4.40");
  EXPECT_EQ(per_second.cost->currency, "EUR");
  EXPECT_EQ(per_second.cost->pools.at(0).name, "workers");
  EXPECT_EQ(per_second.cost->pools.at(0).machines, 4);
  config.pricing.worker_billing = data::parse_billing("per-hour", "test");
  EXPECT_EQ(data::exact_money(simulate(items, predicted(), config).cost->total), "4.80");
}

TEST(RunCost, ARecordedNodeIsBilledFromItsCreationToItsDepartureElseToTheLastEnd) {
  // Attempts span 0..3 h. Node a: created at 0, left at 1 h 30 s; node b: ready at 1 h, never seen
  // to leave (billed to 3 h). Per minute at 2.00/h: a 61 min = 2.033333, b 120 min = 4.00.
  std::vector<data::Attempt> attempts(2);
  attempts[0].start = 0;
  attempts[0].end = kHour;
  attempts[1].start = kHour;
  attempts[1].end = 3 * kHour;
  std::vector<data::NodeArrival> nodes(2);
  nodes[0] = {"a", "standard", 0, kSecond, kHour + 30 * kSecond};
  nodes[1] = {"b", "standard", std::nullopt, kHour, std::nullopt};
  NodePool pool{"standard", 1, 0, 2, 0, {{"cpu", 1000}}};
  pool.price = data::parse_money("2.00", "test");
  pool.billing = data::parse_billing("per-minute", "test");
  const RunCost cost = recorded_run_cost(data::summarize({}, attempts), nodes, Pricing{}, {pool});
  EXPECT_EQ(data::exact_money(cost.total), "6.033333");
  ASSERT_EQ(cost.pools.size(), 1u);
  EXPECT_EQ(cost.pools[0].machines, 2);
}

TEST(RunCost, NoPriceNoCost) {
  SimulationConfig config;
  config.cluster.nodes = 2;
  config.scheduler.params.workers = config.scheduler.params.max_in_flight = 2;
  std::vector<data::WorkItem> items(1);
  items[0].id = "a";
  items[0].predicted = kSecond;
  const SimulationResult r = simulate(items, predicted(), config);
  EXPECT_FALSE(r.cost.has_value());
  EXPECT_FALSE(to_json(r, false).contains("cost"));
}

std::string error_of(const std::string& path) {
  try {
    read_node_pools(path);
  } catch (const data::Error& e) {
    return e.what();
  }
  return "";
}

TEST(RunCost, PoolsFilesTakePriceAndBillingColumnsAndKeys) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu,price,billing\n"
                        "a,1,0,4,90s,4,0.19,per-second:60s\n"
                        "b,0,0,2,,8,1.5,\n";
  const std::vector<NodePool> pools = read_node_pools(csv);
  EXPECT_EQ(pools.at(0).price->millionths, 190'000);
  EXPECT_EQ(pools.at(0).billing, (data::BillingRule{kSecond, 60 * kSecond}));
  EXPECT_EQ(pools.at(1).price->millionths, 1'500'000);
  EXPECT_EQ(pools.at(1).billing, data::BillingRule{});
  const std::string json = dir.file("pools.json");
  std::ofstream(json) << R"({"pools": [{"name": "a", "count": 1, "max": 2, "capacity": {"cpu": 4},
                                         "price": "0.40", "billing": "per-hour"},
                                        {"name": "b", "count": 1, "max": 2, "capacity": {"cpu": 4}, "price": 0.2}]})";
  const std::vector<NodePool> from_json = read_node_pools(json);
  EXPECT_EQ(from_json.at(0).price->millionths, 400'000);
  EXPECT_EQ(from_json.at(0).billing, (data::BillingRule{kHour, 0}));
  EXPECT_EQ(from_json.at(1).price->millionths, 200'000);
}

TEST(RunCost, BadPricesAndBillingRulesAreRefusedByFileAndLine) {
  test_support::ScratchDir dir;
  const std::string header = "pool,count,min,max,provision_delay,capacity.cpu,price,billing\n";
  const std::string negative = dir.file("negative.csv");
  std::ofstream(negative) << header << "a,1,0,4,,4,0.19,\nb,1,0,4,,4,-0.19,\n";
  EXPECT_EQ(error_of(negative), negative + ":3: price '-0.19': is negative; a price is at least 0");
  const std::string word = dir.file("word.csv");
  std::ofstream(word) << header << "a,1,0,4,,4,cheap,\n";
  EXPECT_NE(error_of(word).find(word + ":2: price 'cheap': not a decimal amount"), std::string::npos);
  const std::string rule = dir.file("rule.csv");
  std::ofstream(rule) << header << "a,1,0,4,,4,0.19,per-fortnight\n";
  EXPECT_NE(error_of(rule).find(rule + ":2: billing 'per-fortnight': unknown billing rule"), std::string::npos);
  const std::string half = dir.file("half.csv");
  std::ofstream(half) << header << "a,1,0,4,,4,0.19,\nb,1,0,4,,4,,\n";
  EXPECT_NE(error_of(half).find("pool 'b' has no price while others have one"), std::string::npos);
  const std::string json = dir.file("bad.json");
  std::ofstream(json) << "[\n{\"name\": \"a\", \"capacity\": {\"cpu\": 4}, \"price\": -1}\n]";
  EXPECT_NE(error_of(json).find(json + ":2: pool 1: price '-1': is negative"), std::string::npos);
}

}  // namespace
}  // namespace millrace::sim
