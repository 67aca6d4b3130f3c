// The cheapest mix of node pools (sim/pool_mix.h, sim/cheapest_plan.h) against answers known by
// hand. Items of exactly 1 h, one CPU each, all submitted at 0, on pools of fixed size (every node
// up from the start to the run's end, billed per second, no minimum) of 1-CPU machines unless
// said: on k CPUs in all, n items end at ceil(n / k) h, and a mix costs the sum over its pools of
// nodes x price x that makespan. A spot node taken back is replaced at once (no provisioning
// delay), so its pool's node-time is still nodes x makespan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "data/error.h"
#include "sim/cheapest_plan.h"
#include "sim/node_lifetime.h"
#include "sim/pool_mix.h"
#include "tests/support/pool_double.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kHour = data::kMicrosPerHour;

NodePool pool(const std::string& name, int cpus, const char* price, std::optional<double> spot_rate) {
  NodePool p{name, 1, 1, 1, 0, {{"cpu", cpus * 1000}}};
  p.price = data::parse_money(price, "test");
  p.billing = data::parse_billing("", "test");
  p.spot = spot_rate.has_value();
  p.interruption_rate = spot_rate;
  return p;
}

// `items` items of 1 h and 1 CPU; the pools in this order; makespan <= 2.5 h in 90% of 20
// replicas; each pool searched from 0 to `max` nodes.
CapacityQuestion question(int items, std::vector<NodePool> pools, int max) {
  CapacityQuestion q;
  std::vector<data::WorkItem> recorded;
  for (int i = 0; i < items; ++i) {
    data::WorkItem& item = recorded.emplace_back();
    item.id = "i" + std::to_string(i);
    item.type = "work";
    item.requests = {{"cpu", 1000}};
    q.spec.recorded_durations.push_back(kHour);
  }
  q.spec.recorded_items = recorded;
  q.spec.threads = 1;
  q.spec.replicas = 20;
  q.spec.base.scheduler.policy = "job-per-item";
  q.spec.base.cluster.pools.pools = std::move(pools);
  q.max_nodes = max;
  q.confidence = 0.9;
  q.deadline = 5 * kHour / 2;
  return q;
}

const std::vector<std::size_t> kBoth{0, 1};

int nodes_of(const ComparisonRow& row, const std::string& pool) {
  for (const MixPart& part : row.mix) {
    if (part.pool == pool) return part.nodes;
  }
  ADD_FAILURE() << "no pool " << pool;
  return -1;
}

// Ground truth (issue 39): spot at a third of the on-demand price, interrupted about once in a
// million node-hours. 4 items, 2.5 h: 2 nodes or more meet it. By hand: 4 spot nodes, 1 h, 4
// node-hours x 1.00 = 4.00 (2 spot nodes, 2 h, cost the same but finish later); on-demand alone
// 4 node-hours x 3.00 = 12.00 at best (2 nodes x 2 h or 4 x 1 h): the spot answer costs a third.
TEST(PoolMix, SpotAtAThirdOfThePriceWithRareInterruptionsIsChosenForAThirdOfTheCost) {
  const CapacityQuestion q =
      question(4, {pool("standard", 1, "3.00", std::nullopt), pool("cheap", 1, "1.00", 1e-6)}, 4);
  const MixAnswer mix = plan_mix(q, kBoth);
  EXPECT_EQ(mix.filler, 0u);  // the on-demand pool is searched beside each spot count
  const std::optional<ComparisonRow> cheapest = cheapest_meeting(q, mix.evaluated);
  ASSERT_TRUE(cheapest.has_value());
  EXPECT_EQ(nodes_of(*cheapest, "cheap"), 4);
  EXPECT_EQ(nodes_of(*cheapest, "standard"), 0);
  EXPECT_EQ(mix_text(*cheapest), "4 spot nodes of pool 'cheap'");
  const data::Money four_node_hours_on_spot = data::parse_money("4.00", "by hand");
  const data::Money four_node_hours_on_demand = data::parse_money("12.00", "by hand");
  EXPECT_EQ(cheapest->cost->mean, four_node_hours_on_spot);
  EXPECT_EQ(cheapest->makespan_mean, kHour);
  // The fewest nodes: 2 (2 h); of those, on-demand alone (no spot node), for 12.00.
  ASSERT_TRUE(mix.fewest.has_value());
  EXPECT_EQ(mix_text(*mix.fewest), "2 on-demand nodes of pool 'standard'");
  EXPECT_EQ(mix.fewest->cost->mean, four_node_hours_on_demand);
  // Every on-demand-only mix meeting the target costs three times the answer.
  for (const ComparisonRow& row : mix.evaluated) {
    if (spot_nodes(row) == 0 && meets(q, row)) {
      EXPECT_EQ(row.cost->mean, four_node_hours_on_demand) << mix_text(row);
    }
  }
  EXPECT_TRUE(why_not_spot(q, mix, *cheapest).empty());
  const std::optional<SpotRisk> risk = spot_risk(q, *cheapest);
  ASSERT_TRUE(risk.has_value());
  EXPECT_EQ(risk->with_interruptions, 1.0);
  EXPECT_EQ(risk->without_interruptions, 1.0);
}

// Ground truth (issue 39): 4 spot interruptions per node-hour: a 1 h attempt outlives its node
// with probability exp(-4) = 1.8%, and an item gets 3 attempts, so 4 spot nodes, which meet 2.5 h
// in 1 h without interruptions, almost never do with them. By hand, on-demand: 2 nodes x 2 h or 4
// x 1 h x 3.00 = 12.00, the shorter chosen; a mix with spot nodes meets the target only when the
// 4 items have on-demand nodes (pods go to the lowest-numbered empty node: the on-demand pool's,
// first in the file), the spot nodes idle but billed: 1 spot node beside 4 on-demand, 13.00.
TEST(PoolMix, FrequentInterruptionsMissingTheDeadlineChooseOnDemandAndSayWhy) {
  const CapacityQuestion q = question(4, {pool("standard", 1, "3.00", std::nullopt), pool("cheap", 1, "1.00", 4.0)}, 4);
  const MixAnswer mix = plan_mix(q, kBoth);
  const std::optional<ComparisonRow> cheapest = cheapest_meeting(q, mix.evaluated);
  ASSERT_TRUE(cheapest.has_value());
  EXPECT_EQ(mix_text(*cheapest), "4 on-demand nodes of pool 'standard'");
  EXPECT_EQ(data::exact_money(cheapest->cost->mean), "12.00");
  EXPECT_EQ(cheapest->makespan_mean, kHour);
  EXPECT_FALSE(spot_risk(q, *cheapest).has_value());  // no spot node in the answer

  const std::vector<WhyNotSpot> why = why_not_spot(q, mix, *cheapest);
  ASSERT_EQ(why.size(), 1u);
  const ComparisonRow& alone = why[0].alone;
  EXPECT_EQ(nodes_of(alone, "cheap"), 4);  // spot alone at its best: the most nodes
  EXPECT_EQ(nodes_of(alone, "standard"), 0);
  // The share on target, counted here from the replicas: at most 2 of 20 (asked 18).
  int on_target = 0;
  for (std::size_t i = 0; i < alone.makespans.size(); ++i) {
    on_target += !alone.replica_failed[i] && alone.makespans[i] <= q.deadline;
  }
  EXPECT_LE(on_target, 2);
  // Interruptions per run: about 4 per spot node-hour (its node-hours, within 4 sigma of the
  // Poisson count over 20 replicas).
  const double expected = 4.0 * alone.node_hours;
  EXPECT_NEAR(alone.nodes_interrupted, expected, 4 * std::sqrt(expected / 20)) << alone.node_hours;
  // Without interruptions the same 4 nodes meet it in every replica.
  const ComparisonRow without = replay_mix(
      [&] {
        CapacityQuestion on_demand = q;
        on_demand.spec.base.cluster.pools.pools[1].spot = false;
        on_demand.spec.base.cluster.pools.pools[1].interruption_rate.reset();
        return on_demand;
      }(),
      alone.mix);
  EXPECT_EQ(*without.deadline_met, 1.0);
  ASSERT_TRUE(why[0].cheapest_with_spot.has_value());
  EXPECT_EQ(mix_text(*why[0].cheapest_with_spot), "4 on-demand nodes of pool 'standard' and 1 spot node of pool 'cheap'");
  // 4 x 3.00 + 1 x 1.00 for the hour, and up to a second more per interruption (each of the spot
  // pool's node lives billed per started second).
  EXPECT_GE(why[0].cheapest_with_spot->cost->mean, data::parse_money("13.00", "by hand"));
  EXPECT_LT(why[0].cheapest_with_spot->cost->mean, data::parse_money("13.01", "by hand"));
  EXPECT_EQ(why_not_spot_text(q, why[0], *cheapest),
            "spot alone (4 spot nodes of pool 'cheap') meets makespan <= 2.5h in only " +
                std::to_string(std::lround(100.0 * on_target / 20)) + "% of 20 replicas (asked: 90%): " +
                data::readable_number(alone.nodes_interrupted) + " nodes taken back per run at 4.00/node-hour, " +
                data::readable_number(alone.attempts_interrupted) +
                " attempts lost with them; the cheapest mix with spot nodes meeting it, 4 on-demand nodes of pool "
                "'standard' and 1 spot node of pool 'cheap', costs 13.00 USD (mean) where the answer costs 12.00 USD");
}

// A spot pool given by its distribution of node lifetimes (no rate) says why not spot with the
// rate its lifetimes make on average (1 / the mean life: 4 a node-hour for a mean of 15 min)
// and the distribution as given, never a rate of 0.
TEST(PoolMix, WhyNotSpotOfAPoolGivenByItsLifetimesNamesThemAndTheirAverageRate) {
  NodePool spot = pool("cheap", 1, "1.00", std::nullopt);
  spot.spot = true;
  spot.lifetime = parse_node_lifetime("exponential:mean=15m", "test");
  const CapacityQuestion q = question(4, {pool("standard", 1, "3.00", std::nullopt), spot}, 4);
  const MixAnswer mix = plan_mix(q, kBoth);
  const std::optional<ComparisonRow> cheapest = cheapest_meeting(q, mix.evaluated);
  ASSERT_TRUE(cheapest.has_value());
  EXPECT_EQ(mix_text(*cheapest), "4 on-demand nodes of pool 'standard'");
  const std::vector<WhyNotSpot> why = why_not_spot(q, mix, *cheapest);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_DOUBLE_EQ(why[0].interruption_rate, 4.0);
  EXPECT_EQ(why[0].lifetime, "exponential:mean=15m");
  const std::string text = why_not_spot_text(q, why[0], *cheapest);
  EXPECT_NE(text.find("meets makespan <= 2.5h in only "), std::string::npos) << text;
  EXPECT_NE(text.find(" nodes taken back per run at 4.00/node-hour on average (lifetime exponential:mean=15m), "),
            std::string::npos)
      << text;
}

// Spot alone meeting the target but dearer than on-demand: the reason given is the cost.
TEST(PoolMix, SpotMeetingTheTargetButDearerIsNotChosenAndItsCostIsGiven) {
  const CapacityQuestion q =
      question(4, {pool("standard", 1, "1.00", std::nullopt), pool("cheap", 1, "2.00", 1e-6)}, 4);
  const MixAnswer mix = plan_mix(q, kBoth);
  const std::optional<ComparisonRow> cheapest = cheapest_meeting(q, mix.evaluated);
  ASSERT_TRUE(cheapest.has_value());
  EXPECT_EQ(mix_text(*cheapest), "4 on-demand nodes of pool 'standard'");  // 4.00 in 1 h
  const std::vector<WhyNotSpot> why = why_not_spot(q, mix, *cheapest);
  ASSERT_EQ(why.size(), 1u);
  // 2 spot nodes x 2 h x 2.00 = 8.00.
  const std::string expected =
      "spot alone meets makespan <= 2.5h with 2 spot nodes of pool 'cheap' (in 100% of 20 replicas) but costs "
      "8.00 USD (mean) where the answer costs 4.00 USD";
  EXPECT_EQ(why_not_spot_text(q, why[0], *cheapest).substr(0, expected.size()), expected);
}

// Brute force over every mix on a small grid, by hand: 6 items; pool 'big' on-demand, 2 CPUs at
// 1.50, pool 'small' spot (rarely interrupted), 1 CPU at 1.00; each 0..4 nodes. A mix of s small
// and b big nodes has s + 2b CPUs: 2.5 h is met from 3 (2 h; from 6, 1 h), for (s + 1.5 b) x
// makespan. The search must find, at each count of 'small' it tried, the fewest 'big' nodes the
// brute force finds; bill each mix it simulated as by hand; and answer the cheapest of those.
TEST(PoolMix, TheSearchAgreesWithABruteForceOverEveryMixOfASmallGrid) {
  const CapacityQuestion q = question(6, {pool("small", 1, "1.00", 1e-6), pool("big", 2, "1.50", std::nullopt)}, 4);
  const MixAnswer mix = plan_mix(q, kBoth);
  ASSERT_EQ(mix.filler, 1u);  // 'big', the on-demand pool
  const auto hours = [](int s, int b) { return s + 2 * b == 0 ? 0 : (6 + s + 2 * b - 1) / (s + 2 * b); };
  const auto meets_by_hand = [&](int s, int b) { return s + 2 * b >= 3; };
  const auto cost_by_hand = [&](int s, int b) {
    return data::parse_money(std::to_string(hours(s, b) * (2 * s + 3 * b) / 2) +
                                 ((hours(s, b) * (2 * s + 3 * b)) % 2 ? ".50" : ".00"),
                             "by hand");
  };
  // Each mix simulated is billed as by hand and judged as by hand.
  for (const ComparisonRow& row : mix.evaluated) {
    const int s = nodes_of(row, "small"), b = nodes_of(row, "big");
    EXPECT_EQ(row.cost->mean, cost_by_hand(s, b)) << s << " small, " << b << " big";
    EXPECT_EQ(meets(q, row), meets_by_hand(s, b)) << s << " small, " << b << " big";
  }
  // The grid of 'small': 0, powers of two below 4, 4, and its fewest alone (3).
  std::vector<int> grid;
  for (const MixGridPoint& point : mix.grid) grid.push_back(point.counts[0]);
  EXPECT_EQ(grid, (std::vector<int>{0, 1, 2, 3, 4}));
  // At each, the fewest 'big' nodes meeting the target by brute force over 0..4.
  for (const MixGridPoint& point : mix.grid) {
    const int s = point.counts[0];
    int fewest = 0;
    while (fewest <= 4 && !meets_by_hand(s, fewest)) ++fewest;
    ASSERT_TRUE(point.fewest.has_value()) << s;
    EXPECT_EQ(nodes_of(*point.fewest, "big"), fewest) << s << " small";
  }
  // The cheapest: the brute-force minimum (cost, then mean makespan) over the mixes simulated.
  std::pair<data::Money, data::Micros> best{data::parse_money("1000", "t"), 0};
  for (const ComparisonRow& row : mix.evaluated) {
    const int s = nodes_of(row, "small"), b = nodes_of(row, "big");
    if (meets_by_hand(s, b)) best = std::min(best, {cost_by_hand(s, b), hours(s, b) * kHour});
  }
  const std::optional<ComparisonRow> cheapest = cheapest_meeting(q, mix.evaluated);
  ASSERT_TRUE(cheapest.has_value());
  EXPECT_EQ(std::pair(cheapest->cost->mean, cheapest->makespan_mean), best);
  // Over all 25 mixes the cheapest is 3 big nodes alone (6 CPUs, 1 h, 4.50): the search's is no
  // cheaper, and the fewest nodes are 2 big ones (2 h, 6.00; 1 small and 1 big tie, with spot).
  EXPECT_GE(cheapest->cost->mean, data::parse_money("4.50", "by hand"));
  ASSERT_TRUE(mix.fewest.has_value());
  EXPECT_EQ(mix_text(*mix.fewest), "2 on-demand nodes of pool 'big'");
  EXPECT_EQ(data::exact_money(mix.fewest->cost->mean), "6.00");
}

// Each replica is seeded by what it is, never by the thread that runs it: the mixes simulated and
// every figure are the same on one thread and on four.
TEST(PoolMix, TheMixesEvaluatedAreTheSameOnAnyThreadCount) {
  CapacityQuestion q = question(6, {pool("small", 1, "1.00", 0.3), pool("big", 2, "1.50", std::nullopt)}, 4);
  const std::string one = to_json(Comparison{plan_mix(q, kBoth).evaluated}).dump();
  q.spec.threads = 4;
  EXPECT_EQ(to_json(Comparison{plan_mix(q, kBoth).evaluated}).dump(), one);
}

// Fanned out over one worker (no room to look ahead; 20 replicas a shard, so a shard a mix):
// batch 1 holds the spot pool's search alone at its certain counts 4, 1 and 2 (at 4 it misses the
// target: no count between is asked), so its grid is 0, 1, 2 and 4, whose mixes without 'big' are
// those same three rows; none meets, so 'big' is searched beside each of the four, and batch 2
// holds the certain counts (4, 1, 2) of all four searches: 12. Their bisections over [1, 4] ask
// 2 and then 1 (2 big nodes meet it beside any grid count), already sent: 2 batches for 15 mixes,
// where a batch per search made 5; the same mixes and figures as here.
TEST(PoolMix, AMixFannedOutSendsItsFillerSearchesCertainCountsInOneBatchAndAnswersAsHere) {
  CapacityQuestion q = question(6, {pool("small", 1, "1.00", 0.3), pool("big", 2, "1.50", std::nullopt)}, 4);
  const MixAnswer here = plan_mix(q, kBoth);
  ASSERT_TRUE(here.alone[0].has_value());
  EXPECT_FALSE(meets(q, *here.alone[0]));
  EXPECT_EQ(nodes_of(*here.alone[0], "small"), 4);
  std::vector<std::size_t> batches;
  q.spec.elsewhere = test_support::pool_double(
      1, 20, [&batches](const std::vector<ComparisonSpec>& specs) { batches.push_back(specs.size()); });
  const MixAnswer fanned = plan_mix(q, kBoth);
  EXPECT_EQ(to_json(Comparison{fanned.evaluated}).dump(), to_json(Comparison{here.evaluated}).dump());
  EXPECT_EQ(here.evaluated.size(), 15u);
  EXPECT_EQ(batches, (std::vector<std::size_t>{3, 12}));
}

TEST(PoolMix, AMixOfFewerThanTwoPoolsOrFromMoreThanOneNodeIsRefusedNamingTheOption) {
  CapacityQuestion q = question(4, {pool("standard", 1, "3.00", std::nullopt), pool("cheap", 1, "1.00", 1e-6)}, 4);
  const auto refusal = [](const CapacityQuestion& asked, const std::vector<std::size_t>& pools) -> std::string {
    try {
      plan_mix(asked, pools);
    } catch (const data::Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal(q, {0}), "--pool: a mix searches two pools or more");
  EXPECT_EQ(refusal(q, {1, 1}), "--pool: a pool is named twice");
  q.min_nodes = 2;
  EXPECT_EQ(refusal(q, kBoth), "--min-nodes 2: a mix searches each pool from 0 nodes to --max-nodes: leave --min-nodes out");
}

}  // namespace
}  // namespace millrace::sim
