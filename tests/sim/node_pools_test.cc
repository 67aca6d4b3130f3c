// Node pools in the simulator: schedules computed by hand, and an independent reference
// placement (written here, the naive way: every pending pod scanned in arrival order against
// every node) agreeing with the simulator pod by pod on a seeded random workload.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "data/cluster_model.h"
#include "data/error.h"
#include "data/quantity.h"
#include "sim/node_pools.h"
#include "sim/simulation.h"
#include "tests/support/scratch_dir.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;

std::int64_t q(const char* text) { return data::parse_quantity_milli(text, "test"); }

struct Pod {
  std::string id;
  data::Quantities requests;
  data::Micros duration = 0;
  data::Micros submit = 0;
  std::string type = "job";
};

std::vector<data::WorkItem> items_of(const std::vector<Pod>& pods) {
  std::vector<data::WorkItem> items;
  for (const Pod& p : pods) {
    data::WorkItem item;
    item.id = p.id;
    item.type = p.type;
    item.requests = p.requests;
    item.submit_at = p.submit;
    item.predicted = p.duration;
    items.push_back(item);
  }
  return items;
}

DurationModel predicted_durations() {
  return [](const data::WorkItem& item) { return item.predicted; };
}

NodePool pool_of(const std::string& name, int count, int min, int max, data::Micros delay,
                 data::Quantities capacity) {
  return NodePool{name, count, min, max, delay, std::move(capacity)};
}

SimulationConfig job_per_item(std::vector<NodePool> pools, Placement placement, int cap = 1000) {
  SimulationConfig config;
  config.cluster.pools.pools = std::move(pools);
  config.cluster.pools.placement = placement;
  config.scheduler.policy = "job-per-item";
  config.scheduler.params.max_in_flight = cap;
  return config;
}

struct Started {
  data::Micros at = 0;
  std::string node;
  friend bool operator==(const Started&, const Started&) = default;
};

std::map<std::string, Started> starts_of(const SimulationResult& r) {
  std::map<std::string, Started> out;
  for (const data::Attempt& a : r.attempt_log) out[a.item_id] = Started{a.start, a.worker};
  return out;
}

TEST(NodePools, PodsThatDoNotFitWaitUntilOthersFinish) {
  // One 4-CPU node. A (3 CPU, 10 s) starts at 0; B (2 CPU) does not fit beside it; C (1 CPU)
  // does (3 + 1 = 4) and runs 0-4. C's end leaves 1 CPU: still short for B. A ends at 10: B
  // starts then and ends at 15.
  std::vector<Pod> pods = {{"A", {{"cpu", q("3")}}, 10 * kSecond},
                           {"B", {{"cpu", q("2")}}, 5 * kSecond},
                           {"C", {{"cpu", q("1")}}, 4 * kSecond}};
  auto r = simulate(items_of(pods), predicted_durations(),
                    job_per_item({pool_of("p", 1, 1, 1, 0, {{"cpu", q("4")}})}, Placement::kLeastAllocated));
  auto s = starts_of(r);
  EXPECT_EQ(s["A"].at, 0);
  EXPECT_EQ(s["C"].at, 0);
  EXPECT_EQ(s["B"].at, 10 * kSecond);
  EXPECT_EQ(r.makespan, 15 * kSecond);
  EXPECT_EQ(r.waits.max, 10 * kSecond);
  EXPECT_EQ(r.waits.p50, 0);
  // Pending pods over time: B alone for 10 s of a 15 s run.
  EXPECT_DOUBLE_EQ(r.waits.mean_pending, 10.0 / 15.0);
  EXPECT_EQ(r.waits_by_short_resource, (std::map<std::string, std::size_t>{{"cpu", 1}}));
  // CPU held: 3x10 + 1x4 + 2x5 = 44 CPU-seconds of 4 x 15 = 60.
  ASSERT_EQ(r.pools.size(), 1u);
  EXPECT_DOUBLE_EQ(r.pools[0].allocated.at("cpu"), 44.0 / 60.0);
  EXPECT_DOUBLE_EQ(r.pools[0].node_hours, 15.0 / 3600);
  // The tail's share is of the peak pods (2), not of the one node: B alone in the last 1.5 s.
  EXPECT_DOUBLE_EQ(r.summary.tail.utilisation_last_tenth, 0.5);
}

TEST(NodePools, GpuPodWaitsWhileCpuPodsRun) {
  // One node with 4 CPUs and 1 GPU. G1 takes the GPU for 10 s; G2 waits for it although 2 CPUs
  // are free the whole time; the CPU pods C1, C2 start at 0 beside G1.
  std::vector<Pod> pods = {{"G1", {{"cpu", q("1")}, {"nvidia.com/gpu", q("1")}}, 10 * kSecond},
                           {"G2", {{"cpu", q("1")}, {"nvidia.com/gpu", q("1")}}, 5 * kSecond},
                           {"C1", {{"cpu", q("1")}}, 3 * kSecond},
                           {"C2", {{"cpu", q("500m")}}, 3 * kSecond}};
  auto r = simulate(
      items_of(pods), predicted_durations(),
      job_per_item({pool_of("gpu", 1, 1, 1, 0, {{"cpu", q("4")}, {"nvidia.com/gpu", q("1")}})}, Placement::kFirstFit));
  auto s = starts_of(r);
  EXPECT_EQ(s["C1"].at, 0);
  EXPECT_EQ(s["C2"].at, 0);
  EXPECT_EQ(s["G2"].at, 10 * kSecond);
  EXPECT_EQ(r.makespan, 15 * kSecond);
  EXPECT_EQ(r.waits_by_short_resource, (std::map<std::string, std::size_t>{{"nvidia.com/gpu", 1}}));
}

std::size_t nodes_used(const SimulationResult& r) {
  std::set<std::string> nodes;
  for (const data::Attempt& a : r.attempt_log) nodes.insert(a.worker);
  return nodes.size();
}

TEST(NodePools, BinPackingAndSpreadingUseDifferentNodeCounts) {
  // Four 1-CPU pods on four 4-CPU nodes: spreading puts one on each node, bin packing and
  // first-fit put all four on node 0.
  std::vector<Pod> pods;
  for (int i = 0; i < 4; ++i) pods.push_back({"P" + std::to_string(i), {{"cpu", q("1")}}, 10 * kSecond});
  auto run = [&](Placement placement) {
    return simulate(items_of(pods), predicted_durations(),
                    job_per_item({pool_of("p", 4, 4, 4, 0, {{"cpu", q("4")}})}, placement));
  };
  EXPECT_EQ(nodes_used(run(Placement::kLeastAllocated)), 4u);
  EXPECT_EQ(nodes_used(run(Placement::kMostAllocated)), 1u);
  EXPECT_EQ(nodes_used(run(Placement::kFirstFit)), 1u);
  auto packed = starts_of(run(Placement::kMostAllocated));
  EXPECT_EQ(packed["P3"].node, "p/node-000");
  auto spread = starts_of(run(Placement::kLeastAllocated));
  EXPECT_EQ(spread["P3"].node, "p/node-003");
}

TEST(NodePools, AutoscalerGrowsAfterTheProvisionDelayAndShrinksAfterIdle) {
  // One 2-CPU node up (min 1, max 3, 60 s to provision, 120 s scale-down delay). Three 2-CPU
  // pods of 100 s at t=0: P1 runs at once; P2 and P3 find no room, each orders a node (the first
  // ordered node's room is taken by P2): both start at 60 and end at 160. node-000 is empty
  // from 100 and goes at 220; node-001 and node-002 are empty from 160: at 280 node-001 goes,
  // node-002 stays (the pool is at its min). P4 (t=400, 10 s) runs on node-002 at once.
  std::vector<Pod> pods = {{"P1", {{"cpu", q("2")}}, 100 * kSecond},
                           {"P2", {{"cpu", q("2")}}, 100 * kSecond},
                           {"P3", {{"cpu", q("2")}}, 100 * kSecond},
                           {"P4", {{"cpu", q("2")}}, 10 * kSecond, 400 * kSecond}};
  auto config = job_per_item({pool_of("p", 1, 1, 3, 60 * kSecond, {{"cpu", q("2")}})}, Placement::kLeastAllocated);
  config.cluster.pools.scale_down_delay = 120 * kSecond;
  auto r = simulate(items_of(pods), predicted_durations(), config);
  auto s = starts_of(r);
  EXPECT_EQ(s["P1"], (Started{0, "p/node-000"}));
  EXPECT_EQ(s["P2"], (Started{60 * kSecond, "p/node-001"}));
  EXPECT_EQ(s["P3"], (Started{60 * kSecond, "p/node-002"}));
  EXPECT_EQ(s["P4"], (Started{400 * kSecond, "p/node-002"}));
  EXPECT_EQ(r.makespan, 410 * kSecond);
  ASSERT_EQ(r.pools.size(), 1u);
  EXPECT_EQ(r.pools[0].nodes_at_end, 1);
  // Node time: node-000 0-220, node-001 60-280, node-002 60-410: 790 s.
  EXPECT_DOUBLE_EQ(r.pools[0].node_hours, 790.0 / 3600);
}

TEST(NodePools, TheLeastWasteExpanderGrowsThePoolThePodFillsBest) {
  // Both pools start empty and may grow; a 2-CPU, 2-GiB pod. A 16-CPU/64-GiB node would be left
  // (14/16 + 62/64) / 2 = 92% unrequested, a 2-CPU/4-GiB one (0 + 2/4) / 2 = 25%: least-waste
  // grows "small", first grows "big" (first in the file). Up after 30 s, the pod runs 30-40 s.
  const std::vector<NodePool> pools = {pool_of("big", 0, 0, 2, 30 * kSecond, {{"cpu", q("16")}, {"memory", q("64Gi")}}),
                                       pool_of("small", 0, 0, 2, 30 * kSecond, {{"cpu", q("2")}, {"memory", q("4Gi")}})};
  const std::vector<Pod> pods = {{"P", {{"cpu", q("2")}, {"memory", q("2Gi")}}, 10 * kSecond}};
  auto config = job_per_item(pools, Placement::kLeastAllocated);
  EXPECT_EQ(starts_of(simulate(items_of(pods), predicted_durations(), config))["P"],
            (Started{30 * kSecond, "big/node-000"}));
  config.cluster.pools.expander = Expander::kLeastWaste;
  EXPECT_EQ(starts_of(simulate(items_of(pods), predicted_durations(), config))["P"],
            (Started{30 * kSecond, "small/node-000"}));
  // A pool at its max is not grown: "small" has its one node, which P1 fills; P2 makes "big" grow.
  config.cluster.pools.pools[1] = pool_of("small", 1, 1, 1, 30 * kSecond, {{"cpu", q("2")}, {"memory", q("4Gi")}});
  const std::vector<Pod> two = {{"P1", {{"cpu", q("2")}, {"memory", q("2Gi")}}, 100 * kSecond},
                                {"P2", {{"cpu", q("2")}, {"memory", q("2Gi")}}, 10 * kSecond}};
  auto s = starts_of(simulate(items_of(two), predicted_durations(), config));
  EXPECT_EQ(s["P1"], (Started{0, "small/node-000"}));
  EXPECT_EQ(s["P2"], (Started{30 * kSecond, "big/node-000"}));
}

TEST(NodePools, TwoTypesUnderSeparateCapsShareOnePool) {
  // One 8-CPU node; four 1-CPU pods of type a (cap 1) and four of type b (cap 2), 10 s each:
  // a runs one at a time (0, 10, 20, 30), b two at a time (0, 0, 10, 10).
  std::vector<Pod> pods;
  for (int i = 0; i < 4; ++i) pods.push_back({"a" + std::to_string(i), {{"cpu", q("1")}}, 10 * kSecond, 0, "a"});
  for (int i = 0; i < 4; ++i) pods.push_back({"b" + std::to_string(i), {{"cpu", q("1")}}, 10 * kSecond, 0, "b"});
  auto config = job_per_item({pool_of("p", 1, 1, 1, 0, {{"cpu", q("8")}})}, Placement::kLeastAllocated, 10);
  config.scheduler.params.type_limits = {{"a", 1}, {"b", 2}};
  auto s = starts_of(simulate(items_of(pods), predicted_durations(), config));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(s["a" + std::to_string(i)].at, i * 10 * kSecond) << i;
  EXPECT_EQ(s["b0"].at, 0);
  EXPECT_EQ(s["b1"].at, 0);
  EXPECT_EQ(s["b2"].at, 10 * kSecond);
  EXPECT_EQ(s["b3"].at, 10 * kSecond);
}

// A pools file's provision_delay reads as the duration options do (90, 90s, 2m, 1.5h).
TEST(NodePools, PoolsFilesTakeDurationsAsTheOptionsDo) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu\n"
                        "bare,1,0,2,45,4\nsecs,1,0,2,90s,4\nmins,1,0,2,2m,4\nhours,1,0,2,1.5h,4\nmillis,1,0,2,250ms,4\n";
  std::vector<data::Micros> delays;
  for (const NodePool& pool : read_node_pools(csv)) delays.push_back(pool.provision_delay);
  EXPECT_EQ(delays, (std::vector<data::Micros>{45 * kSecond, 90 * kSecond, 120 * kSecond, 5400 * kSecond,
                                               kSecond / 4}));
  const std::string json = dir.file("pools.json");
  std::ofstream(json) << R"({"pools": [{"name": "a", "provision_delay": "2m", "capacity": {"cpu": 4}},)"
                      << R"( {"name": "b", "provision_delay": 30, "capacity": {"cpu": 4}}]})";
  const std::vector<NodePool> pools = read_node_pools(json);
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].provision_delay, 120 * kSecond);
  EXPECT_EQ(pools[1].provision_delay, 30 * kSecond);
}

// A provision_delay left empty (CSV) or out (JSON) is not given: a fitted one may be drawn instead.
TEST(NodePools, APoolsFileMayLeaveTheProvisionDelayOut) {
  test_support::ScratchDir dir;
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu\na,1,0,2,,4\nb,1,0,2,0,4\n";
  const std::vector<NodePool> from_csv = read_node_pools(csv);
  EXPECT_FALSE(from_csv[0].provision_delay_given);
  EXPECT_EQ(from_csv[0].provision_delay, 0);
  EXPECT_TRUE(from_csv[1].provision_delay_given);
  const std::string json = dir.file("pools.json");
  std::ofstream(json) << R"([{"name": "a", "capacity": {"cpu": 4}}, {"name": "b", "provision_delay": 0, "capacity": {"cpu": 4}}])";
  const std::vector<NodePool> from_json = read_node_pools(json);
  EXPECT_FALSE(from_json[0].provision_delay_given);
  EXPECT_TRUE(from_json[1].provision_delay_given);
}

// 40 pods of 2 CPUs at t=0 on a pool of one 2-CPU node that may grow to 41: 39 nodes are ordered at
// once, and each pod waiting for one starts when its node is up.
std::vector<data::Micros> ordered_node_starts(const NodePool& pool, std::shared_ptr<const data::ClusterModel> fitted,
                                              std::uint64_t seed) {
  std::vector<Pod> pods;
  for (int i = 0; i < 40; ++i) pods.push_back({"P" + std::to_string(i), {{"cpu", q("2")}}, 1000 * kSecond});
  auto config = job_per_item({pool}, Placement::kFirstFit);
  config.cluster.fitted = std::move(fitted);
  config.seed = seed;
  std::vector<data::Micros> starts;
  for (const auto& [id, started] : starts_of(simulate(items_of(pods), predicted_durations(), config))) {
    if (started.at > 0) starts.push_back(started.at);
  }
  return starts;
}

std::shared_ptr<const data::ClusterModel> fitted_provisioning(std::vector<double> pooled_s,
                                                              std::map<std::string, std::vector<double>> by_pool_s) {
  auto model = std::make_shared<data::ClusterModel>();
  const auto quantiles = [](std::vector<double> seconds) {
    for (double& s : seconds) s *= kSecond;
    return data::EmpiricalQuantiles::of(std::move(seconds));
  };
  model->provisioning.pooled = quantiles(std::move(pooled_s));
  for (auto& [pool, values] : by_pool_s) model->provisioning.by_type[pool] = quantiles(std::move(values));
  return model;
}

TEST(NodePools, EachOrderedNodeComesUpAfterADrawFromTheFittedProvisioningDelayUnlessThePoolGivesOne) {
  NodePool pool = pool_of("p", 1, 1, 41, 0, {{"cpu", q("2")}});
  pool.provision_delay_given = false;
  const auto fitted = fitted_provisioning({60, 75, 90, 105, 120}, {});
  const std::vector<data::Micros> drawn = ordered_node_starts(pool, fitted, 7);
  ASSERT_EQ(drawn.size(), 39u);
  for (data::Micros at : drawn) {
    EXPECT_GE(at, 60 * kSecond);
    EXPECT_LE(at, 120 * kSecond);
  }
  EXPECT_GT(std::set<data::Micros>(drawn.begin(), drawn.end()).size(), 30u) << "a draw per node, not one for all";
  EXPECT_EQ(ordered_node_starts(pool, fitted, 7), drawn) << "equal seeds, equal draws";
  EXPECT_NE(ordered_node_starts(pool, fitted, 8), drawn);

  // The pool's own fitted delay before the pooled one.
  const std::vector<data::Micros> own = ordered_node_starts(pool, fitted_provisioning({60, 120}, {{"p", {200, 200}}}), 7);
  EXPECT_EQ(std::set<data::Micros>(own.begin(), own.end()), std::set<data::Micros>{200 * kSecond});
  // A delay the pools file gives wins over the fitted one; nothing fitted: the pool's delay.
  pool.provision_delay_given = true;
  pool.provision_delay = 45 * kSecond;
  const std::vector<data::Micros> given = ordered_node_starts(pool, fitted, 7);
  EXPECT_EQ(std::set<data::Micros>(given.begin(), given.end()), std::set<data::Micros>{45 * kSecond});
  pool.provision_delay_given = false;
  const std::vector<data::Micros> unfitted = ordered_node_starts(pool, nullptr, 7);
  EXPECT_EQ(std::set<data::Micros>(unfitted.begin(), unfitted.end()), std::set<data::Micros>{45 * kSecond});
}

TEST(NodePools, ABadDurationInAPoolsFileNamesTheFileTheLineOrKeyAndTheValue) {
  test_support::ScratchDir dir;
  const auto refused = [](const std::string& path, const std::string& expected) {
    try {
      read_node_pools(path);
      ADD_FAILURE() << "accepted " << path;
    } catch (const data::Error& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  };
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu\nok,1,0,2,90s,4\nbad,1,0,2,soon,4\n";
  refused(csv, csv + ":3: provision_delay 'soon': not a duration (e.g. 30s, 500ms, 2m, 1h; a bare number is seconds)");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu\nneg,1,0,2,-2m,4\n";
  refused(csv, csv + ":2: provision_delay '-2m': is negative; a duration is at least 0");
  const std::string json = dir.file("pools.json");
  std::ofstream(json) << R"([{"name": "a", "provision_delay": "2 weeks", "capacity": {"cpu": 4}}])";
  refused(json, json + ":1: pool 1: provision_delay '2 weeks': not a duration (e.g. 30s, 500ms, 2m, 1h; a bare number "
                       "is seconds)");
}

// A misspelt column (`prise` for `price`, `capcity.cpu`) or key was dropped without a word: each
// is refused by file:line, naming the fields a pool has.
TEST(NodePools, AnUnknownColumnOrKeyIsRefusedByFileAndLineNamingTheKnownOnes) {
  test_support::ScratchDir dir;
  const auto refused = [](const std::string& path) -> std::string {
    try {
      read_node_pools(path);
      ADD_FAILURE() << "accepted " << path;
    } catch (const data::Error& e) {
      return e.what();
    }
    return "";
  };
  const std::string csv = dir.file("pools.csv");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capcity.cpu\np,1,0,2,90s,4\n";
  EXPECT_EQ(refused(csv), csv + ":1: unknown column 'capcity.cpu' (known: pool, count, min, max, provision_delay, "
                                "price, billing, capacity_type, interruption_rate, lifetime, capacity.NAME)");
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu,prise\np,1,0,2,90s,4,0.5\n";
  EXPECT_EQ(refused(csv), csv + ":1: unknown column 'prise' (known: pool, count, min, max, provision_delay, "
                                "price, billing, capacity_type, interruption_rate, lifetime, capacity.NAME)");
  const std::string json = dir.file("pools.json");
  std::ofstream(json) << "{\"pools\": [\n  {\"name\": \"a\", \"capacity\": {\"cpu\": 4}},\n"
                         "  {\"name\": \"b\", \"prise\": 0.5, \"capacity\": {\"cpu\": 4}}\n]}\n";
  EXPECT_EQ(refused(json), json + ":3: pool 2: unknown key 'prise' (known: name, count, min, max, provision_delay, "
                                  "price, billing, capacity_type, interruption_rate, lifetime, capacity)");
  std::ofstream(json) << R"({"pools": [{"name": "a", "capacity": {"cpu": 4}}], "placement": "first-fit"})";
  EXPECT_EQ(refused(json), json + ":1: unknown key 'placement' (known: pools)");
  // The known fields still read.
  std::ofstream(csv) << "pool,count,min,max,provision_delay,capacity.cpu\np,1,0,2,90s,4\n";
  EXPECT_EQ(read_node_pools(csv).size(), 1u);
}

TEST(NodePools, APodLargerThanEveryMachineIsAnErrorNamingIt) {
  std::vector<Pod> pods = {{"small", {{"cpu", q("1")}}, kSecond}, {"huge", {{"cpu", q("8")}}, kSecond}};
  try {
    simulate(items_of(pods), predicted_durations(),
             job_per_item({pool_of("p", 1, 0, 4, 0, {{"cpu", q("4")}, {"memory", q("16Gi")}})}, Placement::kFirstFit));
    FAIL() << "expected an error";
  } catch (const data::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("item 'huge'"), std::string::npos) << message;
    EXPECT_NE(message.find("cpu 8"), std::string::npos) << message;
    EXPECT_NE(message.find("could never start"), std::string::npos) << message;
  }
  std::vector<Pod> gpu = {{"g", {{"nvidia.com/gpu", q("1")}}, kSecond}};
  try {
    simulate(items_of(gpu), predicted_durations(),
             job_per_item({pool_of("p", 1, 0, 4, 0, {{"cpu", q("4")}})}, Placement::kFirstFit));
    FAIL() << "expected an error";
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvidia.com/gpu 1, which no node pool has"), std::string::npos) << e.what();
  }
}

// The reference: time steps over arrivals and ends; at each, ends first free their room, then
// every pending pod in arrival order goes to the node that fits it with the lowest (spread) or
// highest (pack) sum of allocated / capacity after placing it, ties to the lowest node.
std::map<std::string, Started> reference_placement(const std::vector<Pod>& pods, const std::vector<NodePool>& pools,
                                                   Placement placement) {
  struct Node {
    std::string name;
    data::Quantities capacity, used;
  };
  std::vector<Node> nodes;
  for (const NodePool& pool : pools) {
    for (int n = 0; n < pool.count; ++n) {
      char name[64];
      std::snprintf(name, sizeof name, "%s/node-%03d", pool.name.c_str(), n);
      nodes.push_back(Node{name, pool.capacity, {}});
    }
  }
  struct Running {
    data::Micros end;
    std::size_t pod;
    std::size_t node;
  };
  std::vector<Running> running;
  std::vector<std::size_t> pending;
  std::map<std::string, Started> starts;
  std::vector<std::size_t> by_submit(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) by_submit[i] = i;
  std::stable_sort(by_submit.begin(), by_submit.end(),
                   [&](std::size_t a, std::size_t b) { return pods[a].submit < pods[b].submit; });
  std::size_t next_arrival = 0;
  while (next_arrival < pods.size() || !running.empty()) {
    data::Micros now = INT64_MAX;
    if (next_arrival < pods.size()) now = pods[by_submit[next_arrival]].submit;
    for (const Running& r : running) now = std::min(now, r.end);
    for (auto it = running.begin(); it != running.end();) {
      if (it->end != now) {
        ++it;
        continue;
      }
      for (const auto& [resource, amount] : pods[it->pod].requests) nodes[it->node].used[resource] -= amount;
      it = running.erase(it);
    }
    while (next_arrival < pods.size() && pods[by_submit[next_arrival]].submit == now) {
      pending.push_back(by_submit[next_arrival++]);
    }
    std::vector<std::size_t> still;
    for (std::size_t p : pending) {
      int best = -1;
      double best_score = 0;
      for (std::size_t n = 0; n < nodes.size(); ++n) {
        bool fits = true;
        double score = 0;
        for (const auto& [resource, capacity] : nodes[n].capacity) {
          auto asked = pods[p].requests.find(resource);
          const std::int64_t after = nodes[n].used[resource] + (asked == pods[p].requests.end() ? 0 : asked->second);
          fits = fits && after <= capacity;
          score += static_cast<double>(after) / static_cast<double>(capacity);
        }
        if (!fits) continue;
        if (placement == Placement::kMostAllocated) score = -score;
        if (best < 0 || score < best_score) {
          best = static_cast<int>(n);
          best_score = score;
        }
      }
      if (best < 0) {
        still.push_back(p);
        continue;
      }
      for (const auto& [resource, amount] : pods[p].requests) nodes[best].used[resource] += amount;
      running.push_back(Running{now + pods[p].duration, p, static_cast<std::size_t>(best)});
      starts[pods[p].id] = Started{now, nodes[best].name};
    }
    pending = std::move(still);
  }
  return starts;
}

TEST(NodePools, SimulatorAgreesWithAReferencePlacementOnASeededRandomWorkload) {
  // Two pools of different machines, fixed size; 400 pods with CPU in quarters and memory in
  // 512Mi steps, arrivals and durations at distinct microseconds (seeded, portable draws).
  std::vector<NodePool> pools = {pool_of("small", 3, 3, 3, 0, {{"cpu", q("4")}, {"memory", q("16Gi")}}),
                                 pool_of("large", 2, 2, 2, 0, {{"cpu", q("8")}, {"memory", q("32Gi")}})};
  std::mt19937_64 rng(20261203);
  std::vector<Pod> pods;
  for (int i = 0; i < 400; ++i) {
    Pod p;
    p.id = "pod" + std::to_string(i);
    p.requests["cpu"] = static_cast<std::int64_t>(1 + rng() % 16) * 250;             // 250m .. 4
    p.requests["memory"] = static_cast<std::int64_t>(1 + rng() % 32) * q("512Mi");  // 512Mi .. 16Gi
    p.submit = static_cast<data::Micros>(rng() % 4'000'000'000ULL);
    p.duration = 1 + static_cast<data::Micros>(rng() % 600'000'000ULL);
    pods.push_back(p);
  }
  for (Placement placement : {Placement::kLeastAllocated, Placement::kMostAllocated}) {
    auto r = simulate(items_of(pods), predicted_durations(), job_per_item(pools, placement, 100000));
    auto expected = reference_placement(pods, pools, placement);
    auto got = starts_of(r);
    ASSERT_EQ(got.size(), pods.size());
    std::size_t waited = 0;
    for (const Pod& p : pods) {
      EXPECT_EQ(got[p.id], expected[p.id]) << p.id << " under " << to_string(placement);
      waited += expected[p.id].at > p.submit;
    }
    EXPECT_GT(waited, 20u);  // the workload does make pods wait
  }
}

// Pools cost the nodes they use (sim/pool_nodes.h): the untouched nodes are counted, and a pool
// of 2 x 10^9 nodes behaves node for node as a small one.
TEST(NodePools, UntouchedNodesGoInNodeOrderDownToMinWhateverThePoolsSize) {
  // N 4-CPU nodes up, min N - 3, scale-down after 100 s. P (4 CPU, 0-50 s) takes node-000, empty
  // from 50 (its own check at 150). At 100 the untouched nodes 1..N-1 are checked in order:
  // 1, 2 and 3 go (N -> N - 3 up), the rest stay. At 150 node-000 stays (the pool is at its
  // min). Q and R (4 CPU, 200-250 s) take node-000 and the lowest untouched node, node-004.
  // Node time to 250 s: node-000 250, nodes 1-3 100 each, nodes 4..N-1 250 each.
  for (int n : {5, 2'000'000'000}) {
    std::vector<Pod> pods = {{"P", {{"cpu", q("4")}}, 50 * kSecond},
                             {"Q", {{"cpu", q("4")}}, 50 * kSecond, 200 * kSecond},
                             {"R", {{"cpu", q("4")}}, 50 * kSecond, 200 * kSecond}};
    auto config = job_per_item({pool_of("p", n, n - 3, n, 0, {{"cpu", q("4")}})}, Placement::kLeastAllocated);
    config.cluster.pools.scale_down_delay = 100 * kSecond;
    auto r = simulate(items_of(pods), predicted_durations(), config);
    const std::string digits = n == 5 ? "" : "0000000";  // names are as wide as the largest number
    auto s = starts_of(r);
    EXPECT_EQ(s["P"], (Started{0, "p/node-" + digits + "000"})) << n;
    EXPECT_EQ(s["Q"], (Started{200 * kSecond, "p/node-" + digits + "000"})) << n;
    EXPECT_EQ(s["R"], (Started{200 * kSecond, "p/node-" + digits + "004"})) << n;
    EXPECT_EQ(r.makespan, 250 * kSecond);
    ASSERT_EQ(r.pools.size(), 1u);
    EXPECT_EQ(r.pools[0].nodes_at_end, n - 3);
    const double node_seconds = 250.0 + 3 * 100.0 + (static_cast<double>(n) - 4) * 250.0;
    EXPECT_DOUBLE_EQ(r.pools[0].node_hours, node_seconds / 3600) << n;
  }
}

// The bundled catch-up's 3,396 ranges (their recorded durations, file order) as 1-CPU pods.
std::vector<Pod> bundled_ranges_as_pods() {
  std::ifstream in(std::string(MILLRACE_SOURCE_DIR) +
                   "/data/sets/stellar-pcv2-2024-11/pcv2_run_2024-11_per_range_timings.csv");
  std::string line;
  std::getline(in, line);  // header: ...,total_s last
  std::vector<Pod> pods;
  while (std::getline(in, line)) {
    const double seconds = std::stod(line.substr(line.rfind(',') + 1));
    pods.push_back({"r" + std::to_string(pods.size()), {{"cpu", q("1")}}, std::llround(seconds * 1e6)});
  }
  return pods;
}

// Each pod in order to the lane free earliest: job-per-item under a cap of `lanes` when every
// pod finds an empty node at once.
data::Micros list_schedule_makespan(const std::vector<Pod>& pods, int lanes) {
  std::priority_queue<data::Micros, std::vector<data::Micros>, std::greater<>> free;
  for (int l = 0; l < lanes; ++l) free.push(0);
  data::Micros makespan = 0;
  for (const Pod& p : pods) {
    const data::Micros end = free.top() + p.duration;
    free.pop();
    free.push(end);
    makespan = std::max(makespan, end);
  }
  return makespan;
}

TEST(NodePools, TheBundledReplayOnTwoBillionNodesMatchesTwoHundred) {
  const std::vector<Pod> pods = bundled_ranges_as_pods();
  ASSERT_EQ(pods.size(), 3396u);
  const data::Micros expected = list_schedule_makespan(pods, 200);
  // Fixed pools of 4-CPU machines (count = min = max): every node up all along, the cap of 200
  // pods the only limit.
  for (int n : {200, 2'000'000'000}) {
    auto r = simulate(items_of(pods), predicted_durations(),
                      job_per_item({pool_of("m", n, n, n, 0, {{"cpu", q("4")}})}, Placement::kLeastAllocated, 200));
    EXPECT_EQ(r.makespan, expected) << n;
    EXPECT_EQ(r.succeeded, pods.size());
    ASSERT_EQ(r.pools.size(), 1u);
    EXPECT_EQ(r.pools[0].nodes_at_end, n);
    EXPECT_DOUBLE_EQ(r.node_hours, static_cast<double>(n) * static_cast<double>(expected) / 3.6e9) << n;
  }
  // Autoscaled from 2 nodes (min 0, 90 s to provision, the default 10 min scale-down): 200 pods
  // at once never need 200 nodes, so a max of 2 x 10^9 runs as a max of 200.
  for (Placement placement : {Placement::kLeastAllocated, Placement::kMostAllocated}) {
    auto autoscaled = [&](int max) {
      return simulate(items_of(pods), predicted_durations(),
                      job_per_item({pool_of("m", 2, 0, max, 90 * kSecond, {{"cpu", q("4")}})}, placement, 200));
    };
    const SimulationResult small = autoscaled(200);
    const SimulationResult huge = autoscaled(2'000'000'000);
    EXPECT_GT(small.waits.max, 0);  // pods waited for nodes to come up
    EXPECT_EQ(huge.makespan, small.makespan) << to_string(placement);
    EXPECT_EQ(huge.node_hours, small.node_hours) << to_string(placement);
    EXPECT_EQ(huge.waits.p90, small.waits.p90) << to_string(placement);
    EXPECT_EQ(huge.events, small.events) << to_string(placement);
  }
}

}  // namespace
}  // namespace millrace::sim
