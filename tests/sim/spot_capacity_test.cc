// Spot node pools in the simulator: interruptions at the typed rate (the count per node-hour
// against its Poisson expectation over seeds), node lives drawn from a lifetime distribution
// (their mean and quantiles against the distribution's closed form over seeds), an interrupted
// node's attempt retried on the replacement the autoscaler orders (the schedule computed here
// from the interruption stream's own draws), common random numbers (spot on one pool changes no
// other draw), the warning when the median item is more often interrupted than not (its chance
// against a hand figure and a numerical integral), and the pools file's spot fields refused by
// file:line when wrong.
#include <gtest/gtest.h>

#include <algorithm>
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

// An item that fails for good early (the run failed, the other items carry on) stops no
// interruption: they go on at the rate until every item is settled.
TEST(SpotCapacity, InterruptionsGoOnAfterAnItemFailedForGood) {
  const double rate = 0.5;
  SimulationConfig config = job_per_item({spot(one_cpu_pool("spot", 10, 10, 10, 0), rate)}, 3);
  config.scheduler.retry.max_attempts = 2;
  config.cluster.recorded_ends["I0"] = {RecordedEnd{kSecond, "exit", 1}};
  const SimulationResult r = simulate(one_cpu_items(2000, 6 * 60 * kSecond), predicted_durations(), config);
  EXPECT_TRUE(r.run_failed);
  EXPECT_GE(r.failed_items, 1u);  // I0, and any item interrupted twice
  const double expected = rate * r.pools.at(0).node_hours;
  ASSERT_GT(expected, 50);
  EXPECT_NEAR(static_cast<double>(r.nodes_interrupted), expected, 4 * std::sqrt(expected));
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
                                       "node-hour, e.g. 0.05) nor lifetime (e.g. weibull:shape=0.8,scale=12h), and "
                                       "no fitted model (--model) gives one");
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


// One spot node kept at one (min = max, replaced at once: no provisioning delay) under 4,000
// six-minute items: the times it is taken back follow each other by one drawn life each, so the
// gaps between them are the lives themselves. Over five seeds (about 880 lives) their mean must
// be within 4 standard errors of the Weibull mean D x Gamma(1 + 1/K), and the share of lives
// below the closed-form median D (ln 2)^(1/K) and 90th percentile D (ln 10)^(1/K) within 4
// binomial standard deviations of 0.5 and 0.9.
TEST(SpotCapacity, NodeLivesDrawnFromALifetimeMatchItsClosedFormOverSeeds) {
  const double shape = 0.8, scale_hours = 2;
  NodePool pool = one_cpu_pool("spot", 1, 1, 1, 0);
  pool.spot = true;
  pool.lifetime = parse_node_lifetime("weibull:shape=0.8,scale=2h", "test");
  std::vector<double> lives;  // hours
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SimulationConfig config = job_per_item({pool}, seed);
    config.record_timeline = true;
    const SimulationResult r = simulate(one_cpu_items(4000, 6 * 60 * kSecond), predicted_durations(), config);
    ASSERT_EQ(r.succeeded, 4000u);
    data::Micros last = 0;
    for (const TimelineEntry& e : r.timeline) {
      if (e.kind != TimelineEntry::Kind::kNodeLost) continue;
      lives.push_back(static_cast<double>(e.at - last) / static_cast<double>(kHour));
      last = e.at;
    }
  }
  const double n = static_cast<double>(lives.size());
  ASSERT_GT(n, 700);
  const double g1 = std::tgamma(1 + 1 / shape), g2 = std::tgamma(1 + 2 / shape);
  const double mean = scale_hours * g1, sd = scale_hours * std::sqrt(g2 - g1 * g1);
  double sum = 0;
  for (double life : lives) sum += life;
  EXPECT_NEAR(sum / n, mean, 4 * sd / std::sqrt(n));
  for (const double q : {0.5, 0.9}) {
    const double quantile = scale_hours * std::pow(-std::log(1 - q), 1 / shape);
    const double below = static_cast<double>(std::count_if(lives.begin(), lives.end(),
                                                           [&](double life) { return life < quantile; })) / n;
    EXPECT_NEAR(below, q, 4 * std::sqrt(q * (1 - q) / n)) << "quantile " << q;
  }
}

TEST(SpotCapacity, APoolsFileReadsALifetimeInCsvAndJson) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu,capacity_type,lifetime\n"
                        "cheap,1,0,2,90s,4,spot,\"weibull:shape=0.8,scale=12h\"\n";
  const std::vector<NodePool> pools = read_node_pools(csv);
  ASSERT_TRUE(pools[0].lifetime);
  EXPECT_EQ(pools[0].lifetime->shape, 0.8);
  EXPECT_EQ(pools[0].lifetime->scale, 12 * kHour);
  EXPECT_FALSE(pools[0].interruption_rate);
  const std::string json = dir.file("pools.json");
  std::ofstream(json) << R"([{"name": "b", "capacity_type": "spot", "lifetime": "exponential:mean=90m", "capacity": {"cpu": 4}}])";
  const std::vector<NodePool> from_json = read_node_pools(json);
  ASSERT_TRUE(from_json[0].lifetime);
  EXPECT_EQ(from_json[0].lifetime->shape, 1);
  EXPECT_EQ(from_json[0].lifetime->scale, 90 * 60 * kSecond);
}

TEST(SpotCapacity, BadLifetimesAreRefusedByFileAndLine) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  const std::string header = "pool,count,min,max,provision_delay,capacity.cpu,capacity_type,interruption_rate,lifetime\n";
  const auto items = one_cpu_items(4, 10 * 60 * kSecond);
  const auto refused = [&](const std::string& line) {
    std::ofstream(csv) << header << line << "\n";
    return refusal(csv, items);
  };
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,,gamma:shape=2"),
            csv + ":2: lifetime: unknown lifetime family 'gamma' (known: weibull, exponential)");
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,,\"weibull:shape=0,scale=12h\""),
            csv + ":2: lifetime shape=0 must be a number above 0");
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,,\"weibull:shape=-0.5,scale=12h\""),
            csv + ":2: lifetime shape=-0.5 must be a number above 0");
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,,weibull:shape=0.8"),
            csv + ":2: lifetime needs scale= (weibull:shape=K,scale=DURATION, e.g. weibull:shape=0.8,scale=12h)");
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,,\"weibull:shape=0.8,scale=0s\""),
            csv + ":2: lifetime scale=0s must be above 0");
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,,\"weibull:shape=0.8,mean=2h\""),
            csv + ":2: lifetime 'weibull:shape=0.8,mean=2h': unknown or repeated parameter 'mean' "
                  "(weibull:shape=K,scale=DURATION, e.g. weibull:shape=0.8,scale=12h)");
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,0.1,exponential:mean=20h"),
            csv + ":2: spot pool 'cheap' gives both interruption_rate 0.1 and lifetime exponential:mean=20h: give one");
  EXPECT_EQ(refused("sure,1,0,2,90s,4,,,exponential:mean=20h"),
            csv + ":2: lifetime exponential:mean=20h on pool 'sure', which is not spot (capacity_type spot)");
  EXPECT_NE(refused("cheap,1,0,2,90s,4,spot,,exponential:mean=soon").find(csv + ":2: lifetime mean"),
            std::string::npos);
  // Nodes living a minute on average under ten-minute items: each attempt outlives its node with
  // probability exp(-10) = 4.54e-05, every attempt interrupted.
  EXPECT_EQ(refused("cheap,1,0,2,90s,4,spot,,exponential:mean=1m"),
            csv + ":2: spot pool 'cheap': a lifetime of exponential:mean=1m (typed) gives a node 1.0 min on average, "
                  "and the median item that fits it (10.0 min) would outlive a node with probability 4.54e-05: every "
                  "attempt would be interrupted");
}

// The warnings a simulation of `items` on one spot pool gives.
std::vector<SurvivalRisk> risks_of(const NodePool& pool, const std::vector<data::WorkItem>& items) {
  return simulate(items, predicted_durations(), job_per_item({pool}, 1)).survival_risks;
}

// Hour-long items on nodes taken back once a node-hour: an attempt survives with probability
// exp(-1) = 0.368, is interrupted with 0.632, and an item needs 0.632 / 0.368 = 1.72 retries on
// average. Half as often (0.5 per node-hour: survival 0.607) is not warned of.
TEST(SpotCapacity, AMedianItemMoreOftenInterruptedThanNotIsWarnedOfWithTheRetriesToExpect) {
  NodePool pool = spot(one_cpu_pool("cheap", 2, 2, 2, 0), 1);
  pool.declared_at = "pools.csv:2";
  const std::vector<SurvivalRisk> risks = risks_of(pool, one_cpu_items(5, kHour));
  ASSERT_EQ(risks.size(), 1u);
  EXPECT_NEAR(risks[0].survival, std::exp(-1.0), 1e-12);
  EXPECT_EQ(survival_warnings(risks),
            "warning: pools.csv:2: spot pool 'cheap': each attempt of the median item that fits it (1.00 h) is "
            "interrupted with probability 0.632 (an interruption rate of 1 per node-hour, typed); expect about 1.72 "
            "retries per item\n");
  EXPECT_TRUE(risks_of(spot(one_cpu_pool("cheap", 2, 2, 2, 0), 0.5), one_cpu_items(5, kHour)).empty());
}

// A Weibull lifetime (shape 0.5, scale 1 h) and four-hour items: the chance an attempt started at
// a moment of a node's life taken at random outlives it is the integral of the survival function
// exp(-(t / D)^K) from the item's duration on over the whole integral, computed here with
// Simpson's rule (substituting t = u^2 to smooth the start); it is 0.41 (warned of). Hour-long
// items survive with 0.74 (not warned of).
TEST(SpotCapacity, ALifetimesAttemptSurvivalIsTheShareOfLifeLeftAfterTheItem) {
  NodePool pool = one_cpu_pool("cheap", 2, 2, 2, 0);
  pool.spot = true;
  pool.lifetime = parse_node_lifetime("weibull:shape=0.5,scale=1h", "test");
  const auto integral = [](double from_hours, double to_hours) {  // of exp(-sqrt(t)) dt, t = u^2
    const int steps = 200000;
    const double a = std::sqrt(from_hours), b = std::sqrt(to_hours), h = (b - a) / steps;
    double sum = 0;
    for (int i = 0; i <= steps; ++i) {
      const double u = a + i * h;
      const double f = 2 * u * std::exp(-u);
      sum += f * (i == 0 || i == steps ? 1 : (i % 2 == 1 ? 4 : 2));
    }
    return sum * h / 3;
  };
  const double whole = integral(0, 2500);
  const std::vector<SurvivalRisk> risks = risks_of(pool, one_cpu_items(5, 4 * kHour));
  ASSERT_EQ(risks.size(), 1u);
  EXPECT_NEAR(risks[0].survival, integral(4, 2500) / whole, 1e-6);
  EXPECT_NE(risks[0].warning.find("(a lifetime of weibull:shape=0.5,scale=1h, typed)"), std::string::npos);
  EXPECT_TRUE(risks_of(pool, one_cpu_items(5, kHour)).empty());
}

}  // namespace
}  // namespace millrace::sim
