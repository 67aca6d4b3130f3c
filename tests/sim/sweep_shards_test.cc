// A comparison cut into shards (sim/sweep_shards.h) and its replicas' results carried as JSON
// (sim/replica_result.h): the shards cover every replica once, in task order; rows summarised
// from shards simulated apart equal the comparison simulated whole; a shard's payload and
// results read back exactly, and malformed ones are refused naming the field.
#include "sim/sweep_shards.h"

#include <gtest/gtest.h>

#include <cmath>

#include "data/error.h"
#include "tests/support/error_message.h"
#include "sim/node_pools.h"

namespace millrace::sim {
namespace {

using nlohmann::json;
using test_support::error_of;

// 1 s/unit on [0, 800), 4 s/unit on [800, 1000).
data::CostModel tip_heavy_model() {
  return data::CostModel({{{0, 800}, 0, 1e6}, {{800, 200}, 0, 4e6}}, "units", "synthetic");
}

ComparisonSpec spec_on(const data::CostModel& model) {
  ComparisonSpec spec;
  spec.model = &model;
  spec.span = {0, 1000};
  spec.partitioners = {"uniform", "optimal"};
  spec.workers = {3, 4};
  spec.replicas = 5;
  spec.seed = 11;
  spec.base.cluster.fail_prob = 0.3;  // replicas differ
  spec.partition.ranges = 12;
  return spec;
}

TEST(SweepShards, ShardsCoverEveryReplicaOfEveryCombinationOnceInTaskOrder) {
  const data::CostModel model = tip_heavy_model();
  const std::vector<Shard> shards = shards_of(spec_on(model), 2);
  // 2 partitioners x 2 counts x 1 order = 4 combinations, each in blocks 0-1, 2-3, 4.
  ASSERT_EQ(shards.size(), 12u);
  for (std::size_t c = 0; c < 4; ++c) {
    for (std::size_t b = 0; b < 3; ++b) {
      const Shard& s = shards[c * 3 + b];
      EXPECT_EQ(s.combination, c);
      EXPECT_EQ(s.first_replica, static_cast<int>(2 * b));
      EXPECT_EQ(s.replicas, b < 2 ? 2 : 1);
    }
  }
}

TEST(SweepShards, RowsFromShardsSimulatedApartEqualTheComparisonSimulatedWhole) {
  const data::CostModel model = tip_heavy_model();
  const ComparisonSpec whole = spec_on(model);
  ComparisonSpec apart = whole;
  int calls = 0;
  auto elsewhere = std::make_shared<Elsewhere>();
  elsewhere->batch = [&calls](const std::vector<ComparisonSpec>& specs) {
    ++calls;
    EXPECT_EQ(specs.size(), 1u);
    std::vector<ReplicaResult> results;
    for (const Shard& shard : shards_of(specs.front(), 2)) {
      // Through JSON, as a worker sends them.
      const std::vector<ReplicaResult> mine = run_shard(specs.front(), shard);
      for (ReplicaResult& r : replica_results_from_json(json::parse(to_json(mine).dump()), mine.size(), "results")) {
        results.push_back(std::move(r));
      }
    }
    return std::vector<std::vector<ReplicaResult>>{results};
  };
  apart.elsewhere = elsewhere;
  EXPECT_EQ(to_json(run_comparison(apart)).dump(), to_json(run_comparison(whole)).dump());
  EXPECT_EQ(calls, 1);
}

TEST(SweepShards, ASelectionNarrowsTheBaseToWhatAComparisonKeeps) {
  const data::CostModel model = tip_heavy_model();
  ComparisonSpec count = spec_on(model);
  count.workers = {7};
  count.partitioners = {"optimal"};
  count.seed = 12;
  count.base.scheduler.params.deadline = 3600;
  const ComparisonSpec rebuilt = selected(spec_on(model), selection_of(count));
  EXPECT_EQ(rebuilt.workers, std::vector<int>{7});
  EXPECT_EQ(rebuilt.partitioners, std::vector<std::string>{"optimal"});
  EXPECT_EQ(rebuilt.seed, 12u);
  EXPECT_EQ(rebuilt.base.scheduler.params.deadline, 3600);
  // The node pools as the comparison has them (a node search sizes them) replace the base's.
  NodePool pool;
  pool.name = "standard";
  pool.count = pool.max = 3;
  pool.capacity = {{"cpu", 4000}};
  count.base.cluster.pools.pools = {pool};
  count.base.cluster.pools.placement = Placement::kFirstFit;
  const ComparisonSpec on_pool = selected(spec_on(model), selection_of(count));
  ASSERT_EQ(on_pool.base.cluster.pools.pools.size(), 1u);
  EXPECT_EQ(on_pool.base.cluster.pools.pools[0].count, 3);
  EXPECT_EQ(on_pool.base.cluster.pools.placement, Placement::kFirstFit);
  EXPECT_TRUE(selected(count, selection_of(spec_on(model))).base.cluster.pools.pools.empty());
  ComparisonSelection listed = selection_of(count);
  listed.listed = {"theirs"};
  EXPECT_EQ(error_of([&] { selected(spec_on(model), listed); }),
            "the sweep's bundle: has no listed partition theirs");
}

TEST(SweepShards, APayloadReadsBackAndAMalformedOneIsRefusedNamingTheField) {
  const data::CostModel model = tip_heavy_model();
  ShardOrder order{std::string(64, 'c'), selection_of(spec_on(model)), Shard{3, 2, 2}};
  order.selection.params.type_limits = {{"range", 4}};
  NodePool pool;
  pool.name = "cheap";
  pool.capacity = {{"cpu", 2000}};
  pool.spot = true;
  pool.interruption_rate = 0.5;
  order.selection.node_pools.pools = {pool};
  const ShardOrder back = shard_order_from_payload(payload_of(order), "payload");
  EXPECT_EQ(payload_of(back), payload_of(order));
  EXPECT_EQ(back.shard.combination, 3u);
  EXPECT_EQ(back.selection.params.type_limits.at("range"), 4);
  ASSERT_EQ(back.selection.node_pools.pools.size(), 1u);  // every field: tests/sim/node_pools_json_test.cc
  EXPECT_EQ(back.selection.node_pools.pools[0].interruption_rate, 0.5);

  json payload = json::parse(payload_of(order));
  auto refused = [&](const std::function<void(json&)>& spoil) {
    json bad = payload;
    spoil(bad);
    return error_of([&] { shard_order_from_payload(bad.dump(), "payload"); });
  };
  EXPECT_EQ(refused([](json& p) { p["bundle_sha256"] = "ABC"; }),
            "payload.bundle_sha256: must be 64 lowercase hex digits");
  EXPECT_EQ(refused([](json& p) { p["selection"].erase("workers"); }), "payload.selection.workers: missing");
  EXPECT_EQ(refused([](json& p) { p["selection"]["workers"] = {0}; }),
            "payload.selection.workers: must hold worker counts from 1 to 2147483647");
  EXPECT_EQ(refused([](json& p) { p["selection"]["orders"] = {"sideways"}; }),
            "payload.selection.orders: queue order 'sideways': unknown (known: plan, lpt, priority, tip-first)");
  EXPECT_EQ(refused([](json& p) { p["selection"].erase("node_pools"); }), "payload.selection.node_pools: missing");
  EXPECT_EQ(refused([](json& p) { p["selection"]["node_pools"]["pools"][0]["max"] = 0; }),
            "payload.selection.node_pools.pools: pool 'cheap' needs 0 <= min <= count <= max and max >= 1 (has count 1, "
            "min 0, max 0)");
  EXPECT_EQ(refused([](json& p) { p["shard"]["replicas"] = 0; }),
            "payload.shard.replicas: must be an integer from 1 to 2147483647");
  EXPECT_EQ(error_of([] { shard_order_from_payload("not json", "payload"); }).substr(0, 9), "payload: ");
  // A field this worker does not know (a coordinator of another version) is refused, never
  // ignored: the shard would be simulated without it.
  EXPECT_EQ(refused([](json& p) { p["priority"] = 1; }), "payload.priority: is not a field of a shard's payload");
  EXPECT_EQ(refused([](json& p) { p["selection"]["gpus"] = 2; }),
            "payload.selection.gpus: is not a field of a shard's selection");
  EXPECT_EQ(refused([](json& p) { p["selection"]["params"]["burst"] = 2; }),
            "payload.selection.params.burst: is not a field of a scheduler's parameters");
  EXPECT_EQ(refused([](json& p) { p["shard"]["last_replica"] = 2; }),
            "payload.shard.last_replica: is not a field of a shard");
  // A shard outside the comparison is refused before anything is simulated.
  EXPECT_EQ(error_of([&] { run_shard(spec_on(model), Shard{4, 0, 1}); }),
            "shard of combination 4, replicas 0+1: outside the comparison's 4 combinations of 5 replicas");
}

TEST(ReplicaResults, ReadBackExactlyAndAMalformedOneIsRefusedNamingTheField) {
  ReplicaResult r;
  r.makespan = 123'456'789;
  r.utilisation = 0.1 + 0.2;  // not a short decimal: must come back as the same double
  r.node_hours = 1.0 / 3.0;
  r.cost = RunCost{data::Money{20'000'000}, "USD", {{"standard", data::Money{15'000'000}}, {"cheap", data::Money{5'000'000}}}};
  r.survival_risks = {{1, 0.25, "pools.csv:3: pool 'cheap' (spot): ..."}};
  r.waits = {5, 10, 20, 30, 40, 2.0 / 7.0};
  r.failed = true;
  const std::vector<ReplicaResult> back = replica_results_from_json(json::parse(to_json({r}).dump()), 1, "results");
  EXPECT_EQ(back[0].makespan, r.makespan);
  EXPECT_EQ(back[0].utilisation, r.utilisation);
  EXPECT_EQ(back[0].node_hours, r.node_hours);
  EXPECT_EQ(back[0].waits, r.waits);
  EXPECT_EQ(back[0].cost->total, r.cost->total);
  ASSERT_EQ(back[0].cost->pools.size(), 2u);  // a row's cost band reads each pool's mean
  EXPECT_EQ(back[0].cost->pools[1].name, "cheap");
  EXPECT_EQ(back[0].cost->pools[1].amount, data::Money{5'000'000});
  ASSERT_EQ(back[0].survival_risks.size(), 1u);  // the coordinator warns of them once
  EXPECT_EQ(back[0].survival_risks[0].pool, 1u);
  EXPECT_EQ(back[0].survival_risks[0].survival, 0.25);
  EXPECT_EQ(back[0].survival_risks[0].warning, r.survival_risks[0].warning);
  EXPECT_TRUE(back[0].failed);

  const json good = to_json({r});
  auto refused = [&](const std::function<void(json&)>& spoil, std::size_t expected = 1) {
    json bad = good;
    spoil(bad);
    return error_of([&] { replica_results_from_json(bad, expected, "results"); });
  };
  EXPECT_EQ(refused([](json&) {}, 2), "results: must be an array of 2 replica results");
  EXPECT_EQ(refused([](json& j) { j[0]["makespan_us"] = -1; }),
            "results[0].makespan_us: must be an integer from 0 to 9223372036854775807");
  EXPECT_EQ(refused([](json& j) { j[0]["waits"].erase("p90_us"); }), "results[0].waits.p90_us: missing");
  EXPECT_EQ(refused([](json& j) { j[0]["extra"] = 1; }), "results[0].extra: is not a field of a replica's result");
  EXPECT_EQ(refused([](json& j) { j[0]["utilisation"] = "high"; }), "results[0].utilisation: must be a finite number >= 0");
  EXPECT_EQ(refused([](json& j) { j[0]["failed"] = 1; }), "results[0].failed: must be true or false");
  EXPECT_EQ(refused([](json& j) { j[0]["cost"]["pools"] = "all"; }),
            "results[0].cost.pools: must be an array of at most 1024 elements");
  EXPECT_EQ(refused([](json& j) { j[0]["cost"]["pools"][0].erase("amount_millionths"); }),
            "results[0].cost.pools[0].amount_millionths: missing");
  EXPECT_EQ(refused([](json& j) { j[0]["survival_risks"][0]["warning"] = std::string(5000, 'w'); }),
            "results[0].survival_risks[0].warning: must be a string of at most 4096 characters");
  EXPECT_EQ(refused([](json& j) { j[0].erase("survival_risks"); }), "results[0].survival_risks: missing");
}

}  // namespace
}  // namespace millrace::sim
