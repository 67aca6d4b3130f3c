// End to end: a pod trace with requests and submit times, imported, shown and replayed on node
// pools by the CLI (hand-computed schedule), and the errors of the resource options.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"
#include "tests/support/scratch_dir.h"

namespace millrace::sim {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

class ResourceCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_.path();
    // a (3 CPU) and b (2 CPU) at 0, c (1 CPU) at 10 failing as recorded, d never started.
    write("pods.csv",
          "item,type,submit_s,start_s,end_s,outcome,failure_reason,exit_code,request.cpu,request.memory\n"
          "a,web,0,0,100,succeeded,,0,3,1Gi\n"
          "b,web,0,100,150,succeeded,,0,2,1Gi\n"
          "c,batch,10,10,14,failed,OOMKilled,137,1,512Mi\n"
          "d,batch,20,,,,,,1,1Gi\n");
    write("pools.csv", "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory\nsmall,1,1,1,0,4,16Gi\n");
    CommandResult imported = run_cli("import --store " + store() + " --format csv --name pods " + file("pods.csv"));
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::string store() const { return file("s.db"); }
  // The line of `output` that starts with "cheapest" (plan --minimize cost's answer).
  static std::string cheapest_line(const std::string& output) {
    const std::string from = output.substr(output.find("cheapest"));
    return from.substr(0, from.find('\n'));
  }
  // `simulate` of the recorded pods, one Job each, on the node pools of file `pools` (and `more` options).
  CommandResult simulate_jobs_on(const std::string& pools, const std::string& more = "") {
    return run_cli("simulate --store " + store() + " --run pods --policy job-per-item --node-pools " + file(pools) + more);
  }
  test_support::ScratchDir scratch_;
  std::filesystem::path dir_;
};

TEST_F(ResourceCommands, AMachineCountOfTwoBillionCostsTheNodesInUse) {
  // Nodes are counted, not built: no memory estimate per declared node (2 x 10^9 slots would be
  // 196 GB). Every pod finds an empty node: a 0-100, b 0-50 beside it, c 10-14.
  CommandResult r = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --workers 10 "
                            "--machine cpu=4,memory=16Gi --nodes 2000000000 --max-attempts 1 --report-exhausted "
                            "--no-record --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(out["makespan_us"], 100'000'000);
  EXPECT_EQ(out["waits"]["max_us"], 0);
  EXPECT_EQ(out["pools"][0]["nodes_at_end"], 2'000'000'000);
}

TEST_F(ResourceCommands, PoolsDeclaringMoreNodesThanNumbersAreRefusedNamingTheTotal) {
  write("two.csv", "pool,count,min,max,provision_delay,capacity.cpu\na,1,0,2000000000,0,4\nb,1,0,2000000000,0,4\n");
  CommandResult r = simulate_jobs_on("two.csv", " --workers 4");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("the pools declare 4000000000 nodes in all (their max), more than 2147483647 node numbers"),
            std::string::npos)
      << r.output;
}

TEST_F(ResourceCommands, ShowReportsRecordedWaitsAndRequests) {
  CommandResult r = run_cli("show --store " + store() + " pods");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Waits a 0, b 100 s, c 0: p50 0, p90 100 s (3rd of 3), max 100 s; d never started.
  EXPECT_NE(r.output.find("queue wait:     p50 0 s, p90 1.7 min, p99 1.7 min, max 1.7 min"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 never started"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("request cpu: 4 items, min 1 / median 1 / max 3"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("workers:        on 1"), std::string::npos) << r.output;
}

TEST_F(ResourceCommands, SimulateOnNodePoolsGivesTheHandComputedSchedule) {
  CommandResult r = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --workers 10 "
                            "--node-pools " + file("pools.csv") + " --max-attempts 1 --report-exhausted --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 of 1 item never started and has no predicted duration"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 item failed in the recording"), std::string::npos) << r.output;
  nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  // a runs 0-100 on the 4-CPU node, c 10-14 beside it (fails: OOMKilled), b (2 CPU) waits for
  // a's end: 100-150.
  EXPECT_EQ(out["makespan_us"], 150'000'000);
  EXPECT_EQ(out["items"], 3);
  EXPECT_EQ(out["failed_items"], 1);
  EXPECT_EQ(out["waits"]["max_us"], 100'000'000);
  EXPECT_EQ(out["waits"]["p50_us"], 0);
  EXPECT_EQ(out["waits_by_short_resource"]["cpu"], 1);
  EXPECT_EQ(out["pools"][0]["name"], "small");
  EXPECT_EQ(out["critical_path_us"], 100'000'000);  // max(submit + duration)
  EXPECT_EQ(out["cap"], 10);
  data::TraceStore s = data::TraceStore::open(store());
  const std::int64_t simulated = out["stored_run"];
  EXPECT_NE(s.run(simulated).name.find("job-per-item cap 10 pools pools.csv least-allocated"), std::string::npos)
      << s.run(simulated).name;
  bool replayed_failure = false;
  for (const data::Attempt& a : s.attempts(simulated)) {
    if (a.item_id != "c") continue;
    replayed_failure = a.outcome == data::Outcome::kFailed && a.failure_reason == "OOMKilled" && a.exit_code == 137;
  }
  EXPECT_TRUE(replayed_failure);
}

TEST_F(ResourceCommands, PodLargerThanEveryMachineIsRefusedNamingIt) {
  write("tiny.csv", "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory\ntiny,1,0,4,30,2,16Gi\n");
  CommandResult r = simulate_jobs_on("tiny.csv");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("item 'a': requests cpu 3, memory 1073741824"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(tiny: cpu 2, memory 17179869184): it could never start"), std::string::npos) << r.output;
  write("cpu-only.csv", "pool,count,min,max,provision_delay,capacity.cpu\ncpu,1,0,4,30,8\n");
  CommandResult no_memory = simulate_jobs_on("cpu-only.csv");
  EXPECT_NE(no_memory.exit_code, 0);
  EXPECT_NE(no_memory.output.find("requests memory 1Gi, which no node pool has (they have cpu)"),
            std::string::npos) << no_memory.output;
}

TEST_F(ResourceCommands, MalformedResourceOptionsAreErrorsNamingThem) {
  write("bad.csv", "pool,count,min,max,provision_delay,capacity.cpu\nsmall,1,0,2,0,4x\n");
  CommandResult bad_pool = simulate_jobs_on("bad.csv");
  EXPECT_NE(bad_pool.exit_code, 0);
  EXPECT_NE(bad_pool.output.find("bad.csv:2: capacity.cpu: quantity '4x'"), std::string::npos) << bad_pool.output;
  write("sizes.csv", "pool,count,min,max,provision_delay,capacity.cpu\nsmall,3,0,2,0,4\n");
  CommandResult sizes = simulate_jobs_on("sizes.csv");
  EXPECT_NE(sizes.output.find("pool 'small' needs 0 <= min <= count <= max"), std::string::npos) << sizes.output;
  CommandResult fixed = run_cli("simulate --store " + store() + " --run pods --node-pools " + file("pools.csv"));
  EXPECT_NE(fixed.output.find("use --policy job-per-item (not fixed-pool)"), std::string::npos) << fixed.output;
  CommandResult limit = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --type-limit web=0");
  EXPECT_NE(limit.exit_code, 0);
  EXPECT_NE(limit.output.find("--type-limit 'web=0': expected TYPE=K"), std::string::npos) << limit.output;
  CommandResult placement = simulate_jobs_on("pools.csv", " --placement best");
  EXPECT_NE(placement.output.find("--placement: unknown placement 'best'"), std::string::npos) << placement.output;
}

TEST_F(ResourceCommands, TypeLimitsHoldInSimulate) {
  // web capped at 1: a 0-100 then b 100-150 on slots, as the pool would do; batch unlimited.
  CommandResult r = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --workers 10 "
                            "--type-limit web=1 --max-attempts 1 --report-exhausted --json --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(out["makespan_us"], 150'000'000);
  EXPECT_EQ(out["waits"]["max_us"], 100'000'000);
}

// The node search end to end, on the fixture's pods (a 3 CPU 0-100, b 2 CPU, c 1 CPU failing
// at 14 s as recorded, d never started: left out). On one 4-CPU machine b waits for a: 150 s;
// on two, a and b start at 0: 100 s. The deadline 120 s needs 2 nodes; node-hours 2 x 100 s.
// A spot pool taking nodes back 60 times a node-hour: the median item that fits it (b, 50 s; a
// lasts 100 s, c 4 s) survives a node with probability exp(-60 x 50 / 3600) = 0.435, so each
// attempt is interrupted with 0.565 and an item needs 0.565 / 0.435 = 1.3 retries on average.
// simulate and plan (4 node counts x 5 replicas) warn of it once, on stderr, by file:line.
TEST_F(ResourceCommands, ASpotPoolTakingNodesBackMoreOftenThanNotIsWarnedOfOnce) {
  write("spot.csv", "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory,capacity_type,interruption_rate\n"
                    "cheap,1,1,4,0,4,16Gi,spot,60\n");
  const std::string warning = "warning: " + file("spot.csv") + ":2: spot pool 'cheap': each attempt of the median item "
                              "that fits it (50.0 s) is interrupted with probability 0.565 (an interruption rate of "
                              "60 per node-hour, typed); expect about 1.3 retries per item\n";
  const auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const CommandResult simulated = simulate_jobs_on("spot.csv", " --max-attempts 50 --no-record");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.output;
  EXPECT_EQ(count(simulated.output, warning), 1u) << simulated.output;
  const CommandResult planned = run_cli("plan --store " + store() + " --run pods --node-pools " + file("spot.csv") +
                                        " --deadline 1h --max-nodes 4 --replicas 5 --max-attempts 50 --no-record");
  ASSERT_EQ(planned.exit_code, 0) << planned.output;
  EXPECT_EQ(count(planned.output, "spot pool 'cheap'"), 1u) << planned.output;
  EXPECT_EQ(count(planned.output, warning), 1u) << planned.output;
}

TEST_F(ResourceCommands, PlanFindsTheFewestMachinesAndTheCaps) {
  CommandResult r = run_cli("plan --store " + store() + " --run pods --machine cpu=4,memory=16Gi --deadline 120s "
                            "--max-nodes 4 --confidence 1 --max-attempts 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("item never started and has no predicted duration"), std::string::npos) << r.output;
  nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  EXPECT_EQ(out["answer"]["nodes"], 2);
  EXPECT_EQ(out["answer"]["makespan_mean_us"], 100'000'000);
  EXPECT_NEAR(out["answer"]["node_hours"].get<double>(), 200.0 / 3600, 1e-9);
  EXPECT_EQ(out["curve"][0]["nodes"], 1);
  EXPECT_EQ(out["curve"][0]["makespan_mean_us"], 150'000'000);
  EXPECT_EQ(out["pool"], "machine");
  // The target as it reads and in microseconds, as the worker plan gives its deadline; the nodes searched.
  EXPECT_EQ(out["target"], "makespan <= 120s");
  EXPECT_EQ(out["deadline_us"], 120'000'000);
  EXPECT_FALSE(out.contains("wait_p90_us"));
  EXPECT_EQ(out["min_nodes"], 1);
  EXPECT_EQ(out["max_nodes"], 4);
  // On 2 nodes: web (a, b) saturates at 2 (cap 1: b after a, 150 s), batch (c) at 1; in total 2
  // (a and b at 0; c, submitted at 10 s, waits for a cap slot: a ends at 100 s, c fails at 104 s).
  EXPECT_EQ(out["caps"]["nodes"], 2);
  EXPECT_EQ(out["caps"]["types"][1]["type"], "web");
  EXPECT_EQ(out["caps"]["types"][1]["saturating"], 2);
  EXPECT_EQ(out["caps"]["types"][1]["fewest_meeting"], 2);
  EXPECT_EQ(out["caps"]["types"][0]["saturating"], 1);
  EXPECT_EQ(out["caps"]["total"]["fewest_meeting"], 2);
  EXPECT_GT(out["stored_comparison"].get<int>(), 0);

  CommandResult text = run_cli("plan --store " + store() + " --run pods --node-pools " + file("pools.csv") +
                               " --wait-p90 0 --max-nodes 3 --confidence 1 --max-attempts 1 --no-record");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("2 nodes of pool 'small' meet wait p90 <= 0s in 100% of 1 replica (asked: 100%; searched 1 to 3 nodes)"),
            std::string::npos) << text.output;
  EXPECT_NE(text.output.find("saturation curves"), std::string::npos) << text.output;
}

// `runs` says what a stored node plan searched and answered in nodes of its pools, never as the
// worker counts of its rows (a node plan's rows run every pod at once: "on 4 workers").
TEST_F(ResourceCommands, RunsSaysAStoredNodePlansNodesAndAnswer) {
  ASSERT_EQ(run_cli("plan --store " + store() + " --run pods --machine cpu=4,memory=16Gi --deadline 120s "
                    "--max-nodes 4 --confidence 1 --max-attempts 1").exit_code, 0);
  ASSERT_NE(run_cli("plan --store " + store() + " --run pods --machine cpu=4,memory=16Gi --deadline 10s "
                    "--max-nodes 2 --confidence 1 --max-attempts 1").exit_code, 0);
  write("mix.csv", "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory,capacity_type,"
                   "interruption_rate,price,billing\n"
                   "standard,1,1,1,0,4,16Gi,on-demand,,3,per-hour\n"
                   "cheap,1,1,1,0,4,16Gi,spot,0.000001,1,per-hour\n");
  ASSERT_EQ(run_cli("plan --store " + store() + " --run pods --node-pools " + file("mix.csv") +
                    " --max-nodes 2 --confidence 1 --max-attempts 1 --deadline 120s --minimize cost").exit_code, 0);
  const CommandResult runs = run_cli("runs --store " + store());
  ASSERT_EQ(runs.exit_code, 0) << runs.output;
  // 120 s: a (3 CPU, 100 s) and b (2 CPU, 50 s) start together only on two machines (100 s; one
  // takes 150 s); 10 s is met by none. The mix: two spot machines (2.00) are the cheapest meeting it,
  // its six mixes from one node to three.
  EXPECT_NE(runs.output.find("compared recorded on 1 to 4 nodes of pool 'machine' (3 counts), queue order plan; "
                             "deadline 2.0 min; answer 2 nodes; run pods"),
            std::string::npos) << runs.output;
  EXPECT_NE(runs.output.find("compared recorded on 1 to 2 nodes of pool 'machine' (2 counts), queue order plan; "
                             "deadline 10.0 s; no answer; run pods"),
            std::string::npos) << runs.output;
  EXPECT_NE(runs.output.find("compared recorded on 6 mixes of pools 'standard', 'cheap' (1 to 3 nodes in all), queue "
                             "order plan; deadline 2.0 min; "
                             "answer 2 nodes of pool 'cheap'; run pods"),
            std::string::npos) << runs.output;
  EXPECT_EQ(runs.output.find("workers"), std::string::npos) << runs.output;
}

// On node pools a "worker" of the summary is a node running several pods at once: its busy time
// sums them and may exceed the makespan, so it is named for what it is, never "worker busy".
TEST_F(ResourceCommands, ANodesPodTimeIsNotCalledAWorkersBusyTime) {
  CommandResult r = simulate_jobs_on("pools.csv", " --workers 4 --max-attempts 1 --report-exhausted --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("worker busy"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("node pod-time min/med/max"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(summed over a node's pods at once)"), std::string::npos) << r.output;
}

// simulate --run with no capacity typed in replays on the recording's, as fit's cluster fidelity
// does (one Job per pod, as many at once as the recording ran), and says so; typed in, it is the
// options' own.
TEST_F(ResourceCommands, AReplayTakesTheRecordedCapacityWhereNoneIsTypedIn) {
  CommandResult r = run_cli("simulate --store " + store() + " --run pods --max-attempts 1 --report-exhausted --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("capacity: job-per-item (a trace of payload items)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("from run pods (--policy, --workers, --nodes or --node-pools to choose)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("policy                       job-per-item"), std::string::npos) << r.output;
  CommandResult typed = run_cli("simulate --store " + store() +
                                " --run pods --policy fixed-pool --workers 2 --max-attempts 1 --report-exhausted --no-record");
  ASSERT_EQ(typed.exit_code, 0) << typed.output;
  EXPECT_EQ(typed.output.find("capacity:"), std::string::npos) << typed.output;
  EXPECT_NE(typed.output.find("policy                       fixed-pool"), std::string::npos) << typed.output;
}

TEST_F(ResourceCommands, PlanNodeSearchErrorsNameTheOption) {
  const std::string plan = "plan --store " + store() + " --run pods --machine cpu=4,memory=16Gi ";
  auto refused = [](const CommandResult& r, const std::string& expected) {
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  };
  refused(run_cli(plan + "--deadline 1h"), "--max-nodes: required with --machine");
  refused(run_cli(plan + "--max-nodes 4"), "--deadline: give a positive wanted makespan (e.g. 24h) or a wait target");
  refused(run_cli(plan + "--deadline 1h --max-nodes 4 --max-workers 3"), "--max-workers: a node search searches nodes");
  refused(run_cli(plan + "--deadline 1h --max-nodes 4 --model m.json"), "--model m.json: a node search replays --run");
  refused(run_cli("plan --store " + store() + " --machine cpu=4 --deadline 1h --max-nodes 4"),
          "--machine: a node search replays a recorded run");
  refused(run_cli(plan + "--deadline 1h --max-nodes 4 --node-pools " + file("pools.csv")),
          "give either --node-pools or --machine, not both");
  refused(run_cli(plan + "--deadline 1h --max-nodes 4 --policy fixed-pool"), "use --policy job-per-item (not fixed-pool)");
  refused(run_cli("plan --store " + store() + " --run pods --machine cpu=4,memory=x --deadline 1h --max-nodes 4"),
          "--machine: memory: quantity 'x'");
  refused(run_cli("plan --store " + store() + " --run pods --node-pools " + file("pools.csv") +
                  " --deadline 1h --max-nodes 4 --pool big"), "--pool big: no such pool in --node-pools (it has small)");
  refused(run_cli(plan + "--deadline 50s --max-nodes 4 --max-attempts 1"),
          "--deadline 50s: not met with confidence 0.900000 even with 4 nodes of pool 'machine'");
  refused(run_cli("plan --store " + store() + " --run pods --deadline 1h"), "--max-workers: required");
  // Each node count searched keeps its replicas' results (about 2 log2(64 - 1 + 1) + 3 = 15
  // counts): refused before the search, with the estimate.
  const CommandResult replicas =
      run_cli(plan + "--deadline 1h --max-nodes 64 --replicas 2000000000", "MILLRACE_MEMORY_LIMIT=1G ");
  refused(replicas, "--replicas 2000000000: needs about");
  refused(replicas, "replica results of about 15 node counts searched from 1 to 64");
}

TEST_F(ResourceCommands, SimulateTakesAMachineShorthand) {
  CommandResult r = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --workers 10 "
                            "--machine cpu=4,memory=16Gi --nodes 2 --max-attempts 1 --report-exhausted --json --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  EXPECT_EQ(out["makespan_us"], 100'000'000);  // a and b side by side
  CommandResult no_nodes = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --machine cpu=4");
  EXPECT_NE(no_nodes.output.find("--machine cpu=4: give how many such machines with --nodes N"), std::string::npos)
      << no_nodes.output;
}

// A model whose cluster fit identified node provisioning (60, 90 and 120 s from the orders told by
// unschedulable pods to the nodes' ready times; start-up 0, nothing else identified) brings up each
// node the autoscaler orders after a draw from it, unless the pools file gives provision_delay.
// The pods: a (3 CPUs, 100 s) and b (2 CPUs, 50 s) at 0 order a node each on a pool that starts
// empty; c (1 CPU at 10 s) fits in the room ordered for a.
TEST_F(ResourceCommands, NodesOrderedComeUpAfterTheFittedProvisioningDelayUnlessThePoolsFileGivesOne) {
  write("scaled.csv",
        "item,start_s,end_s,unschedulable_s,scheduled_s,node\n"
        "p1,71,100,11,71,n1\np2,112,150,21,112,n2\np3,152,190,31,152,n3\n");
  write("nodes.csv", "node,pool,created_s,ready_s\nn1,auto,15,71\nn2,auto,25,111\nn3,auto,35,151\n");
  ASSERT_EQ(run_cli("import --store " + store() + " --format csv --name scaled " + file("scaled.csv") + " --nodes " +
                    file("nodes.csv")).exit_code, 0);
  const std::string model = file("model.json");
  CommandResult fit = run_cli("fit --store " + store() + " --runs scaled -o " + model);
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  ASSERT_NE(fit.output.find("node provisioning   3 observations, p50 1.5 min"), std::string::npos) << fit.output;

  write("auto.csv", "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory\nauto,0,0,3,,4,16Gi\n");
  const auto makespan = [&](const std::string& pools, const std::string& seed) {
    CommandResult r = simulate_jobs_on(pools, " --workers 10 --model " + model + " --seed " + seed + " --no-record --json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    EXPECT_NE(out["cluster_source"].get<std::string>().find(
                  "node provisioning (pools whose --node-pools file gives no provision_delay)"),
              std::string::npos)
        << out["cluster_source"];
    return out["makespan_us"].get<std::int64_t>();
  };
  const std::int64_t drawn = makespan("auto.csv", "1");
  EXPECT_GE(drawn, 160'000'000);  // a's node up after 60-120 s, then its 100 s
  EXPECT_LE(drawn, 220'000'000);
  EXPECT_EQ(makespan("auto.csv", "1"), drawn);
  write("given.csv", "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory\nauto,0,0,3,30s,4,16Gi\n");
  EXPECT_EQ(makespan("given.csv", "1"), 130'000'000);  // the file's 30 s wins
}

// Prices end to end. On two machines a runs 0-100 s and b 0-50 s beside it: the fixed pool's two
// nodes live the run's 100 s, billed per second at 0.36 per node-hour: 2 x 100 / 3600 x 0.36 = 0.02.
TEST_F(ResourceCommands, SimulatePricesAMachineByTheSecond) {
  const auto simulate = [&](const std::string& more) {
    return run_cli("simulate --store " + store() + " --run pods --policy job-per-item --workers 10 "
                   "--machine cpu=4,memory=16Gi,price=0.36 --nodes 2 --max-attempts 1 --report-exhausted --no-record" +
                   more);
  };
  CommandResult r = simulate(" --currency EUR");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\ncost 0.02 EUR\n"), std::string::npos) << r.output;
  CommandResult json = simulate(" --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  nlohmann::json out = nlohmann::json::parse(json.output.substr(json.output.find('{')));
  EXPECT_EQ(out["cost"]["total"], "0.02");
  EXPECT_EQ(out["cost"]["currency"], "USD");
  EXPECT_EQ(out["cost"]["pools"]["machine"]["machines"], 2);
}

TEST_F(ResourceCommands, BadPricesAndBillingRulesAreRefusedNamingTheOption) {
  write("badprice.csv", "pool,count,min,max,provision_delay,capacity.cpu,price\nsmall,1,1,1,0,4,lots\n");
  const std::string simulate = "simulate --store " + store() + " --run pods --policy job-per-item --no-record ";
  const std::pair<std::string, std::string> refused[] = {
      {"--machine cpu=4,price=-1 --nodes 1", "price '-1': is negative"},
      {"--machine cpu=4,price=1,billing=per-week --nodes 1", "billing 'per-week': unknown billing rule"},
      {"--machine cpu=4 --nodes 1 --worker-price 0.40", "--worker-price 0.40: prices a fixed pool of workers"},
      {"--worker-price 0.40 --currency 'U$D'", "expected a currency code of 1 to 8 letters"},
      {"--node-pools " + file("badprice.csv"), file("badprice.csv") + ":2: price 'lots': not a decimal amount"}};
  for (const auto& [options, message] : refused) {
    CommandResult r = run_cli(simulate + options);
    EXPECT_NE(r.exit_code, 0) << options;
    EXPECT_NE(r.output.find(message), std::string::npos) << options << "\n" << r.output;
  }
}

// One machine: b waits for a, 150 s; two: 100 s. Billed per started hour at 1.00: one machine
// costs 1.00, two 2.00, four 4.00. For 120 s the fewest and the cheapest are 2 machines (2.00);
// for 200 s one machine (1.00) meets it too.
TEST_F(ResourceCommands, PlanMinimizingCostAnswersTheCheapestMeetingTheTarget) {
  const std::string plan = "plan --store " + store() + " --run pods --machine cpu=4,memory=16Gi,price=1,billing=per-hour "
                           "--max-nodes 4 --confidence 1 --max-attempts 1 --minimize cost --no-record ";
  CommandResult r = run_cli(plan + "--deadline 200s --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  EXPECT_EQ(out["cheapest"]["nodes"], 1);
  EXPECT_EQ(out["cheapest"]["cost"]["mean"], "1.00");
  EXPECT_EQ(out["answer"]["cost"]["mean"], "1.00");
  for (const nlohmann::json& row : out["curve"]) {
    const int nodes = row["nodes"].get<int>();
    EXPECT_EQ(row["cost"]["mean"], std::to_string(nodes) + ".00") << nodes;
  }
  // The frontier: 1 machine (150 s, 1.00) and 2 (100 s, 2.00); 4 are no faster and dearer.
  ASSERT_EQ(out["frontier"].size(), 2u) << out["frontier"].dump();
  EXPECT_EQ(out["frontier"][0]["nodes"], 2);
  EXPECT_EQ(out["frontier"][1]["nodes"], 1);
  CommandResult text = run_cli(plan + "--deadline 120s");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_EQ(cheapest_line(text.output),
            "cheapest meeting makespan <= 120s: 2 nodes of pool 'machine', mean cost 2.00 USD, median makespan "
            "1.7 min, on target in 100% of 1 replica; the fewest, 2 nodes of pool 'machine', "
            "costs 2.00 USD (mean)")
      << text.output;
  CommandResult unpriced = run_cli("plan --store " + store() + " --run pods --machine cpu=4 --max-nodes 4 "
                                   "--deadline 120s --minimize cost --no-record");
  EXPECT_NE(unpriced.exit_code, 0);
  EXPECT_NE(unpriced.output.find("--minimize cost: needs prices"), std::string::npos) << unpriced.output;
}

// Two pools of one machine each, the on-demand one at 3.00 and the spot one (interrupted about
// once in a million node-hours) at 1.00 an hour, billed per started hour: one machine meets 200 s
// (150 s), so the cheapest mix is the spot machine alone (1.00) and the fewest nodes, one, are
// on-demand (3.00). At 5.00 the spot machine meets it too but is dearer: the answer says so.
TEST_F(ResourceCommands, PlanMinimizingCostSearchesTheMixOfEveryPricedPool) {
  const auto pools = [&](const std::string& spot_price) {
    write("mix.csv", "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory,capacity_type,"
                     "interruption_rate,price,billing\n"
                     "standard,1,1,1,0,4,16Gi,on-demand,,3,per-hour\n"
                     "cheap,1,1,1,0,4,16Gi,spot,0.000001," + spot_price + ",per-hour\n");
    return "plan --store " + store() + " --run pods --node-pools " + file("mix.csv") +
           " --max-nodes 2 --confidence 1 --max-attempts 1 --replicas 2 --deadline 200s --no-record ";
  };
  CommandResult r = run_cli(pools("1") + "--minimize cost --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json out = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  EXPECT_EQ(out["pools"], nlohmann::json({"standard", "cheap"}));
  EXPECT_EQ(out["filler"], "standard");
  EXPECT_EQ(out["cheapest"]["mix"], nlohmann::json::parse(R"([{"pool": "standard", "capacity_type": "on-demand",
      "nodes": 0}, {"pool": "cheap", "capacity_type": "spot", "nodes": 1}])"));
  EXPECT_EQ(out["cheapest"]["cost"]["mean"], "1.00");
  EXPECT_EQ(out["answer"]["cost"]["mean"], "3.00");
  EXPECT_EQ(out["answer"]["mix"][0]["nodes"], 1);
  EXPECT_TRUE(out["why_not_spot"].is_null());
  EXPECT_EQ(out["spot_risk"]["met_with_interruptions"], 1.0);
  for (const nlohmann::json& row : out["frontier"]) EXPECT_TRUE(row.contains("mix")) << row.dump();
  // The answer is on the frontier of the configurations meeting the target.
  EXPECT_NE(std::find(out["frontier_meeting"].begin(), out["frontier_meeting"].end(), out["cheapest"]),
            out["frontier_meeting"].end())
      << out["frontier_meeting"].dump();

  CommandResult text = run_cli(pools("5") + "--minimize cost");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_EQ(cheapest_line(text.output),
            "cheapest meeting makespan <= 200s: 1 on-demand node of pool 'standard', mean cost 3.00 USD, median "
            "makespan 2.5 min, on target in 100% of 2 replicas (asked: 100%); the fewest nodes, 1 on-demand node of "
            "pool 'standard', costs 3.00 USD (mean)")
      << text.output;
  EXPECT_NE(text.output.find("\nwhy not spot: spot alone meets makespan <= 200s with 1 spot node of pool 'cheap' (in "
                             "100% of 2 replicas) but costs 5.00 USD (mean) where the answer costs 3.00 USD\n"),
            std::string::npos)
      << text.output;
  // The frontier among those meeting the target marks the answer; cheaper ones missing it come after.
  EXPECT_NE(text.output.find("time against money among the configurations meeting the target (none of them both "
                             "sooner and cheaper on average):\n"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("  1 on-demand node of pool 'standard': mean makespan 2.5 min, mean cost 3.00 USD "
                             "(the answer)\n"),
            std::string::npos)
      << text.output;

  // One pool named: the one-pool search, as before, the other pool as the file gives it (one
  // on-demand machine beside: 1.00 + 3.00); several without --minimize cost: refused.
  CommandResult one = run_cli(pools("1") + "--minimize cost --pool cheap");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("cheapest meeting makespan <= 200s: 1 node of pool 'cheap', mean cost 4.00 USD"),
            std::string::npos)
      << one.output;
  CommandResult fewest = run_cli(pools("1") + "--pool standard --pool cheap");
  EXPECT_NE(fewest.exit_code, 0);
  EXPECT_NE(fewest.output.find("--pool: several pools are searched as a mix for the cheapest: add --minimize cost, or "
                               "name one"),
            std::string::npos)
      << fewest.output;
  CommandResult unnamed = run_cli(pools("1"));
  EXPECT_NE(unnamed.exit_code, 0);
  EXPECT_NE(unnamed.output.find("--pool: --node-pools has several pools (standard, cheap): name the one whose size is "
                                "searched, or give --minimize cost for their cheapest mix"),
            std::string::npos)
      << unnamed.output;
}

// README.md's mix plans on the bundled pod trace: the blocks it shows print the figures its prose
// quotes (between backticks, and the fewest's cost, the mixes evaluated and the on-demand answer).
TEST(ReadmeMixPlan, TheFiguresTheReadmeQuotesAreTheOnesItsBlocksPrint) {
  const std::string source = MILLRACE_SOURCE_DIR;
  std::ifstream file(source + "/README.md");
  std::stringstream read;
  read << file.rdbuf();
  // The README wraps its prose and its commands: compare with single spaces, continuations joined.
  const std::string readme = std::regex_replace(std::regex_replace(read.str(), std::regex("\\\\\n"), " "),
                                                std::regex("\\s+"), " ");
  const std::string pools = "standard,1,1,2,90s,4,16Gi,on-demand,,0.19\ncheap,0,0,10,90s,4,16Gi,spot,0.5,0.06\n";
  const std::string plan = "plan --store $S --run pods --node-pools out/mix-pools.csv --minimize cost --deadline 4h "
                           "--max-nodes 8 --replicas 5 --no-record";
  const std::string plan_20 = "plan --store $S --run pods --node-pools out/mix-pools-20.csv --minimize cost --deadline "
                              "3.9h --max-nodes 8 --replicas 5 --no-record";
  ASSERT_NE(read.str().find(pools), std::string::npos) << "the README's pools differ";
  ASSERT_NE(readme.find("$m " + plan), std::string::npos) << "the README's first mix plan differs";
  ASSERT_NE(readme.find("$m " + plan_20), std::string::npos) << "the README's second mix plan differs";
  ASSERT_NE(readme.find("sed 's/spot,0.5,/spot,20,/' out/mix-pools.csv > out/mix-pools-20.csv"), std::string::npos);

  test_support::ScratchDir scratch;
  const std::string store = (scratch.path() / "s.db").string();
  const std::string header = "pool,count,min,max,provision_delay,capacity.cpu,capacity.memory,capacity_type,"
                             "interruption_rate,price\n";
  std::ofstream(scratch.path() / "mix-pools.csv") << header << pools;
  std::ofstream(scratch.path() / "mix-pools-20.csv") << header << std::regex_replace(pools, std::regex("spot,0.5,"), "spot,20,");
  ASSERT_EQ(run_cli("import --store " + store + " --format csv --name pods " + source + "/examples/pods.csv").exit_code, 0);
  const auto printed = [&](std::string command, const std::string& pools_file) {
    command = std::regex_replace(command, std::regex("\\$S"), store);
    command = std::regex_replace(command, std::regex("out/[a-z0-9-]+\\.csv"), (scratch.path() / pools_file).string());
    const CommandResult r = run_cli(command);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return std::regex_replace(r.output, std::regex("\\s+"), " ");
  };
  const std::string both = printed(plan, "mix-pools.csv") + printed(plan_20, "mix-pools-20.csv");
  const std::size_t from = readme.find("The first answers `");
  const std::size_t to = readme.find("The JSON carries each row's `mix`");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  const std::string prose = readme.substr(from, to - from);
  int quotes = 0;
  const std::regex quoted("`([^`]*)`");
  for (std::sregex_iterator q(prose.begin(), prose.end(), quoted), end; q != end; ++q, ++quotes) {
    EXPECT_NE(both.find((*q)[1].str()), std::string::npos) << "README quotes: " << (*q)[1] << "\nprinted: " << both;
  }
  EXPECT_EQ(quotes, 2);
  // The figures the prose gives outside backticks.
  for (const auto& [in_readme, printed_text] :
       {std::pair{"the fewest nodes, 3 on-demand, cost 2.29 USD", "the fewest nodes, 3 on-demand nodes of pool 'standard', "
                                                                   "costs 2.29 USD"},
        {"the cheapest of the 27 mixes evaluated", "(the cheapest of the 27 mixes evaluated"},
        {"on target in all 5 replicas", "on target in 100% of 5 replicas"},
        {"The second chooses 4 on-demand nodes (3.00 USD)", "4 on-demand nodes of pool 'standard', mean cost 3.00 USD"}}) {
    EXPECT_NE(prose.find(in_readme), std::string::npos) << in_readme;
    EXPECT_NE(both.find(printed_text), std::string::npos) << printed_text << "\nprinted: " << both;
  }
  // "beside 4 spot nodes ... 2 met the target in only 4 of 5 replicas where 1 met it in all".
  ASSERT_NE(prose.find("2 met the target in only 4 of 5 replicas where 1 met it in all"), std::string::npos);
  const std::string json = printed(plan + " --json", "mix-pools.csv");
  std::map<std::pair<int, int>, double> met;
  const nlohmann::json out = nlohmann::json::parse(json.substr(json.find("{ \"")));
  for (const nlohmann::json& row : out["mixes_evaluated"]) {
    met[{row["mix"][0]["nodes"].get<int>(), row["mix"][1]["nodes"].get<int>()}] = row["deadline_met"].get<double>();
  }
  EXPECT_EQ(met.at({2, 4}), 0.8);
  EXPECT_EQ(met.at({1, 4}), 1.0);
}

TEST_F(ResourceCommands, ShowPricesARecordedRunOnlyWithWhatItRecorded) {
  CommandResult nodes = run_cli("show --store " + store() + " pods --machine cpu=4,price=0.19");
  EXPECT_NE(nodes.exit_code, 0);
  EXPECT_NE(nodes.output.find("recorded no node arrivals to price: give --worker-price"), std::string::npos)
      << nodes.output;
}

}  // namespace
}  // namespace millrace::sim
