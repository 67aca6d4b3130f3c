// Spot node pools in the simulator: interruptions at the typed rate (the count per node-hour
// against its Poisson expectation over seeds), an interrupted node's attempt retried on the
// replacement the autoscaler orders (the schedule computed here from the interruption stream's
// own draws), common random numbers (spot on one pool changes no other draw), and the pools
// file's spot fields refused by file:line when wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "data/error.h"
#include "data/quantity.h"
#include "data/uniform_draws.h"
#include "sim/node_pools.h"
#include "sim/simulation.h"
#include "sim/spot_capacity.h"
#include "tests/support/scratch_dir.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;
constexpr data::Micros kHour = data::kMicrosPerHour;

std::vector<data::WorkItem> one_cpu_items(int count, data::Micros duration) {
  std::vector<data::WorkItem> items;
  for (int i = 0; i < count; ++i) {
    data::WorkItem item;
    item.id = "I" + std::to_string(i);
    item.requests = {{"cpu", 1000}};
    item.predicted = duration;
    items.push_back(item);
  }
  return items;
}

DurationModel predicted_durations() {
  return [](const data::WorkItem& item) { return item.predicted; };
}

NodePool one_cpu_pool(const std::string& name, int count, int min, int max, data::Micros delay) {
  NodePool pool{name, count, min, max, delay, {{"cpu", 1000}}};
  return pool;
}

NodePool spot(NodePool pool, double rate) {
  pool.spot = true;
  pool.interruption_rate = rate;
  return pool;
}

SimulationConfig job_per_item(std::vector<NodePool> pools, std::uint64_t seed) {
  SimulationConfig config;
  config.cluster.pools.pools = std::move(pools);
  config.cluster.pools.placement = Placement::kFirstFit;
  config.cluster.pools.scale_down_delay = 0;
  config.scheduler.policy = "job-per-item";
  config.scheduler.params.max_in_flight = 1000;
  config.scheduler.retry.max_attempts = 1000;
  config.seed = seed;
  return config;
}

// Ten spot nodes kept at ten (min = max, replaced at once) under 2,000 six-minute items: each
// node's interruptions are a Poisson process of the rate, so over the seeds the count is Poisson
// with mean rate x node-hours; it must fall within 4 standard deviations of that.
TEST(SpotCapacity, InterruptionsPerNodeHourMatchTheTypedRateOverSeeds) {
  const double rate = 0.5;
  double interruptions = 0, node_hours = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const SimulationResult r = simulate(one_cpu_items(2000, 6 * 60 * kSecond), predicted_durations(),
                                        job_per_item({spot(one_cpu_pool("spot", 10, 10, 10, 0), rate)}, seed));
    ASSERT_EQ(r.succeeded, 2000u);
    interruptions += static_cast<double>(r.nodes_interrupted);
    node_hours += r.pools.at(0).node_hours;
    EXPECT_EQ(r.pools.at(0).interrupted, r.nodes_interrupted);
  }
  const double expected = rate * node_hours;
  ASSERT_GT(expected, 1500);  // 20 x ~21 h x 10 nodes x 0.5
  EXPECT_NEAR(interruptions, expected, 4 * std::sqrt(expected));
}

// One spot node (min 1) and one item longer than the node's first life and shorter than its
// replacement's: the attempt is lost when the node goes, the replacement is up the provisioning
// delay later, and the retry runs there to the end. The lives are drawn here from the
// interruption stream as documented (exponential, mean 1/rate hours); the seed is one where the
// first life is the shorter.
TEST(SpotCapacity, AnInterruptedNodesAttemptRetriesOnTheReplacementAfterItsProvisioningDelay) {
  const double rate = 1;  // per node-hour
  const data::Micros provision = 90 * kSecond;
  for (std::uint64_t seed = 1; seed < 100; ++seed) {
    std::mt19937_64 stream(interruption_seed(seed));
    const auto life = [&] {
      return static_cast<data::Micros>(std::llround(-std::log(data::unit_draw(stream)) / rate * 3600e6));
    };
    const data::Micros first = life(), second = life();
    if (first + kSecond >= second) continue;
    const data::Micros duration = (first + second) / 2;
    const SimulationResult r = simulate(one_cpu_items(1, duration), predicted_durations(),
                                        job_per_item({spot(one_cpu_pool("spot", 1, 1, 1, provision), rate)}, seed));
    EXPECT_EQ(r.succeeded, 1u);
    EXPECT_EQ(r.summary.attempts, 2u);
    EXPECT_EQ(r.nodes_interrupted, 1u);
    EXPECT_EQ(r.attempts_interrupted, 1u);
    EXPECT_EQ(r.makespan, first + provision + duration);
    return;
  }
  FAIL() << "no seed below 100 gives a first life shorter than the second";
}

// Attempts that fail at random (the main stream) and a second pool made spot at a rate too small
// to take a node back within the run: every attempt ends as it did with both pools on-demand.
TEST(SpotCapacity, MakingOnePoolSpotChangesNoOtherDraw) {
  auto run = [](bool with_spot) {
    NodePool second = one_cpu_pool("b", 2, 0, 4, 30 * kSecond);
    if (with_spot) second = spot(second, 1e-9);
    SimulationConfig config = job_per_item({one_cpu_pool("a", 2, 0, 4, 60 * kSecond), second}, 7);
    config.cluster.pools.scale_down_delay = 600 * kSecond;
    config.cluster.fail_prob = 0.3;
    return simulate(one_cpu_items(40, 10 * 60 * kSecond), predicted_durations(), config);
  };
  const SimulationResult on_demand = run(false), with_spot = run(true);
  ASSERT_EQ(on_demand.attempt_log.size(), with_spot.attempt_log.size());
  EXPECT_GT(on_demand.summary.failed_attempts, 0u);
  for (std::size_t i = 0; i < on_demand.attempt_log.size(); ++i) {
    EXPECT_EQ(on_demand.attempt_log[i].start, with_spot.attempt_log[i].start) << i;
    EXPECT_EQ(on_demand.attempt_log[i].end, with_spot.attempt_log[i].end) << i;
    EXPECT_EQ(on_demand.attempt_log[i].failure_reason, with_spot.attempt_log[i].failure_reason) << i;
  }
  EXPECT_EQ(with_spot.nodes_interrupted, 0u);
}

std::string refusal(const std::string& path, const std::vector<data::WorkItem>& items) {
  try {
    SimulationConfig config = job_per_item(read_node_pools(path), 1);
    simulate(items, predicted_durations(), config);
  } catch (const data::Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(SpotCapacity, APoolsFileReadsSpotFieldsInCsvAndJson) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu,capacity_type,interruption_rate\n"
                        "steady,1,0,2,90s,4,,\ncheap,1,0,2,90s,4,spot,0.05\nsure,1,0,2,90s,4,on-demand,\n";
  const std::vector<NodePool> pools = read_node_pools(csv);
  EXPECT_FALSE(pools[0].spot);
  EXPECT_TRUE(pools[1].spot);
  EXPECT_EQ(pools[1].interruption_rate, 0.05);
  EXPECT_EQ(pools[1].declared_at, csv + ":3");
  EXPECT_FALSE(pools[2].spot);
  const std::string json = dir.file("pools.json");
  std::ofstream(json) << R"([{"name": "a", "capacity": {"cpu": 4}},)"
                      << R"( {"name": "b", "capacity_type": "spot", "interruption_rate": 0.2, "capacity": {"cpu": 4}}])";
  const std::vector<NodePool> from_json = read_node_pools(json);
  EXPECT_FALSE(from_json[0].spot);
  EXPECT_TRUE(from_json[1].spot);
  EXPECT_EQ(from_json[1].interruption_rate, 0.2);
}

TEST(SpotCapacity, BadSpotFieldsAreRefusedByFileAndLine) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  const std::string header = "pool,count,min,max,provision_delay,capacity.cpu,capacity_type,interruption_rate\n";
  const auto items = one_cpu_items(4, 10 * 60 * kSecond);
  std::ofstream(csv) << header << "ok,1,0,2,90s,4,,\ncheap,1,0,2,90s,4,spot,\n";
  EXPECT_EQ(refusal(csv, items), csv + ":3: spot pool 'cheap' has no interruption_rate (interruptions per "
                                       "node-hour, e.g. 0.05), and no fitted model (--model) gives one");
  std::ofstream(csv) << header << "cheap,1,0,2,90s,4,spot,-0.1\n";
  EXPECT_EQ(refusal(csv, items), csv + ":2: interruption_rate -0.1 is negative (interruptions per node-hour, e.g. 0.05)");
  std::ofstream(csv) << header << "cheap,1,0,2,90s,4,spot,often\n";
  EXPECT_EQ(refusal(csv, items), csv + ":2: non-numeric interruption_rate 'often' (expected a number)");
  std::ofstream(csv) << header << "sure,1,0,2,90s,4,,0.1\n";
  EXPECT_EQ(refusal(csv, items), csv + ":2: interruption_rate 0.1 on pool 'sure', which is not spot (capacity_type spot)");
  std::ofstream(csv) << header << "cheap,1,0,2,90s,4,preemptible,0.1\n";
  EXPECT_NE(refusal(csv, items).find(csv + ":2: "), std::string::npos);
  EXPECT_NE(refusal(csv, items).find("preemptible"), std::string::npos);
  EXPECT_NE(refusal(csv, items).find("on-demand, spot"), std::string::npos);
}

// Ten-minute items on nodes living 1 minute on average (60 per node-hour): each attempt would
// outlive its node with probability exp(-10) (4.5e-05); at most 27.6 per node-hour (ln 100 per
// sixth of an hour) gives 1 %.
TEST(SpotCapacity, ARateNoAttemptWouldSurviveIsRefusedWithTheFigures) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu,capacity_type,interruption_rate\n"
                        "cheap,1,0,2,90s,4,spot,60\n";
  EXPECT_EQ(refusal(csv, one_cpu_items(3, 10 * 60 * kSecond)),
            csv + ":2: spot pool 'cheap': an interruption rate of 60 per node-hour (typed) gives a node 1.0 min on "
                  "average, and the median item that fits it (10.0 min) would outlive a node with probability "
                  "4.54e-05: every attempt would be interrupted (at most 27.6 per node-hour for a 1 % chance)");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu,capacity_type,interruption_rate\n"
                        "cheap,1,0,2,90s,4,spot,20\n";
  EXPECT_EQ(refusal(csv, one_cpu_items(3, 10 * 60 * kSecond)), "accepted");
}

}  // namespace
}  // namespace millrace::sim
