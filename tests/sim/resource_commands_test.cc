// End to end: a pod trace with requests and submit times, imported, shown and replayed on node
// pools by the CLI (hand-computed schedule), and the errors of the resource options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"

namespace millrace::sim {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

class ResourceCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("millrace_resources_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
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
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::string store() const { return file("s.db"); }
  std::filesystem::path dir_;
};

TEST_F(ResourceCommands, ShowReportsRecordedWaitsAndRequests) {
  CommandResult r = run_cli("show --store " + store() + " pods");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Waits a 0, b 100 s, c 0: p50 0, p90 100 s (3rd of 3), max 100 s; d never started.
  EXPECT_NE(r.output.find("queue wait:     p50 0.000 s, p90 100.000 s, p99 100.000 s, max 100.000 s"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 never started"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("request cpu: 4 items, min 1 / median 1 / max 3"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("workers:        on 1"), std::string::npos) << r.output;
}

TEST_F(ResourceCommands, SimulateOnNodePoolsGivesTheHandComputedSchedule) {
  CommandResult r = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --workers 10 "
                            "--node-pools " + file("pools.csv") + " --max-attempts 1 --report-exhausted --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 of 1 items never started and have no predicted duration"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 items failed in the recording"), std::string::npos) << r.output;
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
  CommandResult r = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --node-pools " +
                            file("tiny.csv"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("item 'a': requests cpu 3, memory 1073741824"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(tiny: cpu 2, memory 17179869184): it could never start"), std::string::npos) << r.output;
  write("cpu-only.csv", "pool,count,min,max,provision_delay,capacity.cpu\ncpu,1,0,4,30,8\n");
  CommandResult no_memory = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --node-pools " +
                                    file("cpu-only.csv"));
  EXPECT_NE(no_memory.exit_code, 0);
  EXPECT_NE(no_memory.output.find("requests memory 1073741824, which no node pool has (they have cpu)"),
            std::string::npos) << no_memory.output;
}

TEST_F(ResourceCommands, MalformedResourceOptionsAreErrorsNamingThem) {
  write("bad.csv", "pool,count,min,max,provision_delay,capacity.cpu\nsmall,1,0,2,0,4x\n");
  CommandResult bad_pool = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --node-pools " +
                                   file("bad.csv"));
  EXPECT_NE(bad_pool.exit_code, 0);
  EXPECT_NE(bad_pool.output.find("bad.csv:2: capacity.cpu: quantity '4x'"), std::string::npos) << bad_pool.output;
  write("sizes.csv", "pool,count,min,max,provision_delay,capacity.cpu\nsmall,3,0,2,0,4\n");
  CommandResult sizes = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --node-pools " +
                                file("sizes.csv"));
  EXPECT_NE(sizes.output.find("pool 'small' needs 0 <= min <= count <= max"), std::string::npos) << sizes.output;
  CommandResult fixed = run_cli("simulate --store " + store() + " --run pods --node-pools " + file("pools.csv"));
  EXPECT_NE(fixed.output.find("use --policy job-per-item (not fixed-pool)"), std::string::npos) << fixed.output;
  CommandResult limit = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --type-limit web=0");
  EXPECT_NE(limit.exit_code, 0);
  EXPECT_NE(limit.output.find("--type-limit 'web=0': expected TYPE=K"), std::string::npos) << limit.output;
  CommandResult placement = run_cli("simulate --store " + store() + " --run pods --policy job-per-item --node-pools " +
                                    file("pools.csv") + " --placement best");
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

}  // namespace
}  // namespace millrace::sim
