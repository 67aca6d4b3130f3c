// The node search of `plan` and the caps on a pool (sim/capacity_plan.h, sim/cap_search.h) on a
// small job-per-item workload whose schedules are computed by hand below.
//
// Machines of 4 CPU and 16 GiB. render: 4 items, 2 CPU each, 100 s; ingest: 6 items, 8 GiB each,
// 60 s; all submitted at 0, render first in plan order. CPU and memory are apart, so on N nodes
// 2N renders and 2N ingests run at once: render takes ceil(4 / 2N) x 100 s, ingest ceil(6 / 2N) x
// 60 s.
//   N = 1: 200 s (render), waits render 0,0,100,100, ingest 0,0,60,60,120,120: p90 (9th of 10) 120 s
//   N = 2: max(100, 120) = 120 s; ingest 0 x 4, 60 x 2: p90 60 s
//   N = 3: 100 s; nobody waits
// On 2 nodes (uncapped 120 s, p90 60 s):
//   render cap 4: 120 s; cap 3: the 4th render at 100 s ends at 200 s       -> saturating 4
//   ingest cap 3: 3 at 0, 3 at 60: 120 s, waits 0 x 7, 60 x 3, p90 60 s; cap 2: 180 s -> saturating 3
//   total cap 7: r1-r4 and i1-i3 at 0, i4-i6 at 60: 120 s;
//   total cap 6: r1-r4, i1, i2 at 0; i3, i4 at 60; i5, i6 at 100 (renders done): 160 s -> saturating 7
#include <gtest/gtest.h>

#include "data/error.h"
#include "sim/cap_search.h"
#include "sim/capacity_plan.h"
#include "tests/support/pool_double.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;
constexpr std::int64_t kGi = 1024LL * 1024 * 1024 * 1000;  // milli-units

CapacityQuestion question() {
  CapacityQuestion q;
  std::vector<data::WorkItem> items;
  for (int i = 1; i <= 4; ++i) {
    data::WorkItem& item = items.emplace_back();
    item.id = "r" + std::to_string(i);
    item.type = "render";
    item.requests = {{"cpu", 2000}};
    q.spec.recorded_durations.push_back(100 * kSecond);
  }
  for (int i = 1; i <= 6; ++i) {
    data::WorkItem& item = items.emplace_back();
    item.id = "i" + std::to_string(i);
    item.type = "ingest";
    item.requests = {{"memory", 8 * kGi}};
    q.spec.recorded_durations.push_back(60 * kSecond);
  }
  q.spec.recorded_items = items;
  q.spec.threads = 1;
  q.spec.base.scheduler.policy = "job-per-item";
  q.spec.base.cluster.pools.pools = {NodePool{"machine", 1, 1, 1, 0, {{"cpu", 4000}, {"memory", 16 * kGi}}}};
  q.node_pool = 0;
  q.max_nodes = 16;
  q.confidence = 1;
  return q;
}

TEST(CapacityOnPools, FewestNodesForADeadlineWithTheCostCurve) {
  CapacityQuestion q = question();
  q.deadline = 150 * kSecond;
  const CapacityAnswer a = plan_capacity(q);
  ASSERT_TRUE(a.best.has_value());
  EXPECT_EQ(a.best->nodes, 2);
  EXPECT_EQ(a.best->makespan_mean, 120 * kSecond);
  EXPECT_EQ(a.best->wait_p90, 60 * kSecond);
  EXPECT_DOUBLE_EQ(a.best->node_hours, 2 * 120.0 / 3600);  // a fixed pool: every node up to the end
  EXPECT_TRUE(a.monotone);
  std::map<int, data::Micros> makespans;
  for (const ComparisonRow& row : a.curve) makespans[row.nodes] = row.makespan_mean;
  EXPECT_EQ(makespans.at(1), 200 * kSecond);
  EXPECT_EQ(makespans.at(4), 100 * kSecond);
  EXPECT_EQ(makespans.at(16), 100 * kSecond);
  EXPECT_EQ(a.curve.back().nodes, 16);
}

TEST(CapacityOnPools, FewestNodesForAWaitTarget) {
  CapacityQuestion q = question();
  q.waits.p90 = 60 * kSecond;
  EXPECT_EQ(plan_capacity(q).best->nodes, 2);
  q.waits.p90 = 0;
  EXPECT_EQ(plan_capacity(q).best->nodes, 3);
  q.waits.p90 = 60 * kSecond;
  q.deadline = 110 * kSecond;  // both: 3 nodes
  EXPECT_EQ(plan_capacity(q).best->nodes, 3);
}

TEST(CapacityOnPools, AnAutoscaledPoolGrowsToTheSearchedMax) {
  CapacityQuestion q = question();
  q.spec.base.cluster.pools.pools[0] = NodePool{"auto", 0, 0, 1, 30 * kSecond, {{"cpu", 4000}, {"memory", 16 * kGi}}};
  q.deadline = 150 * kSecond;
  // Two nodes ordered at 0 come up at 30 s: renders end at 130 s, ingests at 150 s.
  const CapacityAnswer a = plan_capacity(q);
  ASSERT_TRUE(a.best.has_value());
  EXPECT_EQ(a.best->nodes, 2);
  EXPECT_EQ(a.best->makespan_mean, 150 * kSecond);
}

TEST(CapacityOnPools, AnUnreachableTargetReportsTheMaximum) {
  CapacityQuestion q = question();
  q.deadline = 90 * kSecond;  // never below 100 s
  q.max_nodes = 4;
  const CapacityAnswer a = plan_capacity(q);
  EXPECT_FALSE(a.best.has_value());
  EXPECT_EQ(a.best_at_max.nodes, 4);
  EXPECT_EQ(*a.best_at_max.deadline_met, 0.0);
}

TEST(CapacityOnPools, CapsMeetingTheDeadlineAndSaturatingCaps) {
  CapacityQuestion q = question();
  q.deadline = 150 * kSecond;
  const CapAnswer caps = find_caps(q, 2);
  EXPECT_EQ(caps.uncapped.makespan_mean, 120 * kSecond);
  ASSERT_EQ(caps.types.size(), 2u);
  const CapFinding& ingest = caps.types[0];
  const CapFinding& render = caps.types[1];
  EXPECT_EQ(ingest.type, "ingest");
  EXPECT_EQ(ingest.items, 6);
  EXPECT_EQ(ingest.fewest_meeting, 3);  // cap 2: 180 s
  EXPECT_EQ(ingest.saturating, 3);
  EXPECT_EQ(render.type, "render");
  EXPECT_EQ(render.fewest_meeting, 4);  // cap 3: 200 s
  EXPECT_EQ(render.saturating, 4);
  EXPECT_EQ(caps.total.items, 10);
  EXPECT_EQ(caps.total.fewest_meeting, 7);  // cap 6: 160 s
  EXPECT_EQ(caps.total.saturating, 7);
  EXPECT_TRUE(caps.total.monotone);
  for (const CapPoint& p : caps.total.curve) {
    if (p.cap == 6) {
      EXPECT_EQ(p.row.makespan_mean, 160 * kSecond);
    }
    if (p.cap == 1) {
      EXPECT_EQ(p.row.makespan_mean, 4 * 100 * kSecond + 6 * 60 * kSecond);
    }
  }
}

// Every figure of a caps answer, for comparing two.
nlohmann::json caps_json(const CapAnswer& caps) {
  auto finding = [](const CapFinding& f) {
    nlohmann::json curve = nlohmann::json::array();
    for (const CapPoint& p : f.curve) curve.push_back({{"cap", p.cap}, {"row", to_json(Comparison{{p.row}})}});
    return nlohmann::json{{"type", f.type}, {"items", f.items}, {"fewest", f.fewest_meeting ? *f.fewest_meeting : -1},
                          {"saturating", f.saturating}, {"monotone", f.monotone}, {"curve", curve}};
  };
  nlohmann::json out{{"nodes", caps.nodes}, {"uncapped", to_json(Comparison{{caps.uncapped}})}, {"total", finding(caps.total)}};
  for (const CapFinding& f : caps.types) out["types"].push_back(finding(f));
  return out;
}

// The caps on 2 nodes for a 150 s deadline, found over a pool double of `workers` (one replica a
// shard), equal to those found here; the comparisons of each batch.
std::vector<std::size_t> caps_batches_over(int workers) {
  CapacityQuestion q = question();
  q.deadline = 150 * kSecond;
  const CapAnswer here = find_caps(q, 2);
  std::vector<std::size_t> batches;
  q.spec.elsewhere = test_support::pool_double(
      workers, 1, [&batches](const std::vector<ComparisonSpec>& specs) { batches.push_back(specs.size()); });
  EXPECT_EQ(caps_json(find_caps(q, 2)).dump(), caps_json(here).dump());
  return batches;
}

// Fanned out over a pool of one worker (no room to look ahead), the searches run side by side.
// By hand, from the schedules at the top (deadline 150 s; "saturated": within 1.2 s of 120 s in
// makespan and of 60 s in wait p90), each search's questions:
//   ingest's saturation over [1, 6]: 3 yes, 2 no, then 2 again (the walk down)      -> 3
//   render's saturation over [1, 4]: 2 no, 3 no, then 3 again                       -> 4
//   the total's saturation over [1, 10]: 5 (160 s) no, 8 yes, 7 yes, 6 no, 6 again -> 7
//   the total's fewest meeting: 10 (the uncapped replay) yes, then 5, 8, 7, 6, 6 as above -> 7
//   ingest's fewest meeting: 6 yes, 3 yes, 2 no, 2 again -> 3; then render's, ingest at 3:
//   4 yes, 2 no, 3 no, 3 again -> 4.
// Batch 1: the uncapped replay, ingest 3 and 6, render 2, total 5 (each search's first), and the
// saturation curves' powers of two (ingest 1, 2, 4; render 1; total 1, 2, 4, 8): 13. Then one new
// replay a step: render 3; total 7; total 6; render 4 beside ingest 3 (ingest's fewest found);
// render 2 and then 3 beside it: 7 batches, where one replay at a time made 26 (each search's
// own distinct caps, the saturation curves' powers, the uncapped replay).
TEST(CapacityOnPools, CapsFannedOutRunTheirSearchesSideBySideInFewerBatchesAndAnswerAsHere) {
  EXPECT_EQ(caps_batches_over(1), (std::vector<std::size_t>{13, 1, 1, 1, 1, 1, 1}));
}

// With room to look ahead (8 workers: the first batch's 13 shards take two rounds, room for 3
// more), the same answer in fewer batches still.
TEST(CapacityOnPools, CapsFannedOutLookAheadInTheRoundsTheirBatchesTakeAnyway) {
  const std::vector<std::size_t> batches = caps_batches_over(8);
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches.front(), 16u);
  EXPECT_LT(batches.size(), 7u);
}

// A type of one item: its saturation search asks nothing (cap 1 is its only cap), here and
// fanned out, beside the searches that do ask.
TEST(CapacityOnPools, ATypeOfOneItemSaturatesAtOneWithoutAReplayHereOrFannedOut) {
  CapacityQuestion q = question();
  data::WorkItem& solo = q.spec.recorded_items->emplace_back();
  solo.id = "s1";
  solo.type = "solo";
  solo.requests = {{"cpu", 1000}};
  q.spec.recorded_durations.push_back(10 * kSecond);
  q.deadline = 150 * kSecond;
  const CapAnswer here = find_caps(q, 2);
  ASSERT_EQ(here.types.size(), 3u);
  EXPECT_EQ(here.types[2].type, "solo");
  EXPECT_EQ(here.types[2].saturating, 1);
  EXPECT_TRUE(here.types[2].curve.empty());
  q.spec.elsewhere = test_support::pool_double(4, 1, [](const std::vector<ComparisonSpec>&) {});
  EXPECT_EQ(caps_json(find_caps(q, 2)).dump(), caps_json(here).dump());
}

TEST(CapacityOnPools, AGivenTypeLimitHoldsInTheNodeSearchAndBoundsItsCap) {
  CapacityQuestion q = question();
  q.spec.base.scheduler.params.type_limits = {{"render", 2}};
  q.deadline = 250 * kSecond;
  // render capped at 2 takes 200 s on any node count; 1 node does it (ingest 180 s).
  const CapacityAnswer a = plan_capacity(q);
  EXPECT_EQ(a.best->nodes, 1);
  EXPECT_EQ(a.best->makespan_mean, 200 * kSecond);
  const CapAnswer caps = find_caps(q, 1);
  EXPECT_EQ(caps.types[1].fewest_meeting, 2);  // within its limit: cap 1 takes 400 s
}

TEST(CapacityOnPools, RefusesAQuestionWithoutTargetOrRecording) {
  CapacityQuestion q = question();
  try {
    plan_capacity(q);
    FAIL();
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--deadline: give a positive wanted makespan"), std::string::npos) << e.what();
  }
  q.deadline = kSecond;
  q.spec.recorded_items.reset();
  try {
    plan_capacity(q);
    FAIL();
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--run: a node search replays a recorded run"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace millrace::sim
