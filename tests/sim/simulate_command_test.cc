// End-to-end tests of `millrace simulate` on a small recorded run in a fresh trace store.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"

namespace millrace::sim {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

class SimulateCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("millrace_simulate_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db"))
                .string();
    std::filesystem::remove(path_);
    data::TraceStore store = data::TraceStore::open(path_);
    data::Run run;
    run.name = "recorded-demo";
    run.source = data::RunSource::kRecorded;
    run.units = "ledgers";
    std::vector<data::WorkItem> items;
    std::vector<data::Attempt> attempts;
    // Six ranges, tip first, recorded on two workers back to back: 5+3+4 s and 2+6+1 s.
    const data::Micros seconds[] = {5, 2, 3, 6, 4, 1};
    data::Micros busy[2] = {0, 0};
    for (int i = 0; i < 6; ++i) {
      data::WorkItem item;
      item.range = data::Range{(5 - i) * 100, 100};
      item.id = item.range->end_count();
      items.push_back(item);
      int w = i % 2;
      data::Micros d = seconds[i] * data::kMicrosPerSecond;
      attempts.push_back(data::Attempt{item.id, 1, w == 0 ? "worker-a" : "worker-b", busy[w], busy[w] + d,
                                       data::Outcome::kSucceeded, 0, "", std::nullopt});
      busy[w] += d;
    }
    store.add_run(run, items, attempts);
  }
  void TearDown() override {
    std::filesystem::remove(path_);
    std::filesystem::remove(path_ + "-wal");
    std::filesystem::remove(path_ + "-shm");
  }
  std::string path_;
};

TEST_F(SimulateCommand, PrintsTheSimulationNextToTheRecordingAndStoresIt) {
  CommandResult r = run_cli("simulate --store " + path_ + " --run recorded-demo --workers 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Plan order on two workers: w000 runs 5 then 6 (ends 11); w001 runs 2, 3, 4 then 1 (ends 10).
  EXPECT_NE(r.output.find("makespan                     11.000 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("recorded busiest worker      12.000 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stored as simulated run 2"), std::string::npos) << r.output;
  data::TraceStore store = data::TraceStore::open(path_);
  data::Run simulated = store.run(2);
  EXPECT_EQ(simulated.source, data::RunSource::kSimulated);
  EXPECT_EQ(simulated.ended, 11 * data::kMicrosPerSecond);
  EXPECT_EQ(store.attempts(2).size(), 6u);
  EXPECT_EQ(store.items(2), store.items(1));
}

TEST_F(SimulateCommand, EqualSeedsPrintByteIdenticalJson) {
  std::string args = "simulate --store " + path_ + " --run 1 --workers 3 --fail-prob 0.3 --max-attempts 9 "
                     "--startup-latency 1s,2s,7s --json --timeline --no-record";
  CommandResult a = run_cli(args + " --seed 4");
  CommandResult b = run_cli(args + " --seed 4");
  CommandResult c = run_cli(args + " --seed 5");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_NE(a.output, c.output);
  nlohmann::json parsed = nlohmann::json::parse(a.output);
  EXPECT_EQ(parsed["items"], 6);
  EXPECT_EQ(parsed["recorded"]["workers"], 2);
  EXPECT_FALSE(parsed.contains("stored_run"));
}

TEST_F(SimulateCommand, LongestFirstOrderBeatsTipFirstPlanOrderOnThreeWorkers) {
  std::string args = "simulate --store " + path_ + " --run 1 --workers 3 --json --no-record";
  CommandResult plan = run_cli(args);
  CommandResult lpt = run_cli(args + " --order lpt");
  ASSERT_EQ(lpt.exit_code, 0) << lpt.output;
  // Plan: 5 | 2, 6 | 3, 4 | then 1: ends at 8. LPT: 6 | 5 | 4, 3 ... all three end at 7.
  EXPECT_EQ(nlohmann::json::parse(plan.output)["makespan_us"], 8 * data::kMicrosPerSecond);
  EXPECT_EQ(nlohmann::json::parse(lpt.output)["makespan_us"], 7 * data::kMicrosPerSecond);
}

TEST_F(SimulateCommand, UnknownPolicyFailsNamingItAndLeavesTheStoreUnchanged) {
  CommandResult r = run_cli("simulate --store " + path_ + " --run 1 --policy greedy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("millrace: --policy: greedy not in {autoscale,fixed-pool,job-per-item,partial}"),
            std::string::npos)
      << r.output;
  data::TraceStore store = data::TraceStore::open(path_);
  EXPECT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.count_rows("attempts"), 6);
}

TEST_F(SimulateCommand, MissingRunAndBadDurationAreErrorsNamingTheInput) {
  CommandResult missing = run_cli("simulate --store " + path_ + " --run nope");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("nope"), std::string::npos) << missing.output;
  CommandResult bad = run_cli("simulate --store " + path_ + " --run 1 --startup-latency 3parsecs");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("--startup-latency '3parsecs'"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace millrace::sim
