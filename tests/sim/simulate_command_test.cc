// End-to-end tests of `millrace simulate` on a small recorded run in a fresh trace store.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cluster_model.h"
#include "data/model_file.h"
#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"
#include "tests/support/scratch_dir.h"

namespace millrace::sim {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

class SimulateCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = scratch_.file("simulate.db");
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
                                       data::Outcome::kSucceeded, 0, "", std::nullopt, std::nullopt, std::nullopt, ""});
      busy[w] += d;
    }
    store.add_run(run, items, attempts);
  }
  test_support::ScratchDir scratch_;
  std::string path_;
};

TEST_F(SimulateCommand, PrintsTheSimulationNextToTheRecordingAndStoresIt) {
  CommandResult r = run_cli("simulate --store " + path_ + " --run recorded-demo --workers 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Plan order on two workers: w000 runs 5 then 6 (ends 11); w001 runs 2, 3, 4 then 1 (ends 10).
  EXPECT_NE(r.output.find("makespan                     11 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("recorded busiest worker      12 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stored as simulated run 2"), std::string::npos) << r.output;
  data::TraceStore store = data::TraceStore::open(path_);
  data::Run simulated = store.run(2);
  EXPECT_EQ(simulated.source, data::RunSource::kSimulated);
  EXPECT_EQ(simulated.ended, 11 * data::kMicrosPerSecond);
  EXPECT_EQ(store.attempts(2).size(), 6u);
  EXPECT_EQ(store.items(2), store.items(1));
}

// Run names are unique: the same simulation stored twice gets a numbered name the second time.
TEST_F(SimulateCommand, ASimulationStoredAgainGetsANumberedNameOfItsOwn) {
  const std::string args = "simulate --store " + path_ + " --run recorded-demo --workers 2";
  ASSERT_EQ(run_cli(args).exit_code, 0);
  CommandResult again = run_cli(args);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("stored as simulated run 3"), std::string::npos) << again.output;
  data::TraceStore store = data::TraceStore::open(path_);
  const std::string name = store.run(2).name;
  EXPECT_EQ(name.rfind("recorded-demo simulated ", 0), 0u) << name;
  EXPECT_EQ(store.run(3).name, name + " (2)");
  EXPECT_EQ(store.find_run(name), 2);
}

// A cluster-only model file whose fitted start-up latency is 2 s (every quantile), the other
// parts unidentified.
std::string two_second_startup_cluster(const test_support::ScratchDir& scratch) {
  const std::string path = scratch.file("cluster.json");
  data::ClusterModel cluster;
  cluster.source = "test";
  cluster.startup.pooled = data::EmpiricalQuantiles::of({2e6});
  cluster.placement.unidentified = "no phases recorded";
  cluster.failures.unidentified = "too few failures";
  data::write_model_file(path, nullptr, &cluster, nullptr);
  return path;
}

TEST_F(SimulateCommand, ReplaysARecordedRunUnderAModelsFittedCluster) {
  const std::string model = two_second_startup_cluster(scratch_);
  CommandResult r = run_cli("simulate --store " + path_ + " --run recorded-demo --workers 2 --no-record --model " + model);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Each worker starts up once (2 s): w000 runs 5 then 6 (ends 13); w001 2, 3, 4 then 1 (ends 12).
  EXPECT_NE(r.output.find("makespan                     13 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cluster: fitted in " + model + " (test): start-up;"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("failures (--fail-prob: not identified in the fit)"), std::string::npos) << r.output;
}

TEST_F(SimulateCommand, ATypedInStartUpLatencyOverridesTheFittedOne) {
  const std::string model = two_second_startup_cluster(scratch_);
  CommandResult r = run_cli("simulate --store " + path_ + " --run recorded-demo --workers 2 --no-record --model " +
                            model + " --startup-latency 1s");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("makespan                     12 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("start-up (--startup-latency)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing identified"), std::string::npos) << r.output;
}

TEST_F(SimulateCommand, AMalformedClusterSectionIsRefusedNamingTheFileAndTheField) {
  const std::string model = scratch_.file("bad.json");
  nlohmann::json json = data::read_model_json(two_second_startup_cluster(scratch_));
  json["cluster"]["startup"]["pooled"]["quantiles_us"][3] = "soon";
  std::FILE* out = std::fopen(model.c_str(), "w");
  std::fputs(json.dump().c_str(), out);
  std::fclose(out);
  CommandResult r = run_cli("simulate --store " + path_ + " --run recorded-demo --no-record --model " + model);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(model), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cluster.startup.pooled.quantiles_us[3]"), std::string::npos) << r.output;
}

TEST_F(SimulateCommand, AClusterOnlyModelIsRefusedWhereACostModelIsNeeded) {
  const std::string model = two_second_startup_cluster(scratch_);
  CommandResult r = run_cli("compare --store " + path_ + " --model " + model + " --workers 2");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(model), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("holds a cluster model only"), std::string::npos) << r.output;
}

// The tail rows of a printout ("tail: ..." lines, the label's padding dropped).
std::vector<std::string> tail_rows(const std::string& output) {
  std::vector<std::string> rows;
  std::size_t at = 0;
  while ((at = output.find("tail: ", at)) != std::string::npos) {
    std::size_t end = output.find('\n', at);
    std::string row = output.substr(at, end - at);
    std::size_t gap = row.find("  ");
    std::size_t value = row.find_first_not_of(' ', gap);
    rows.push_back(row.substr(0, gap) + " = " + row.substr(value));
    at = end;
  }
  return rows;
}

TEST_F(SimulateCommand, ShowAndSimulatePrintTheSameTailForTheSameSchedule) {
  {
    // The schedule plan order gives on two workers (see above), recorded as such.
    data::TraceStore store = data::TraceStore::open(path_);
    std::vector<data::WorkItem> items = store.items(1);
    const data::Micros s = data::kMicrosPerSecond;
    const struct {
      const char* worker;
      data::Micros start, end;
    } ran[] = {{"a", 0, 5 * s}, {"b", 0, 2 * s}, {"b", 2 * s, 5 * s}, {"a", 5 * s, 11 * s}, {"b", 5 * s, 9 * s},
               {"b", 9 * s, 10 * s}};
    std::vector<data::Attempt> attempts;
    for (std::size_t i = 0; i < items.size(); ++i) {
      attempts.push_back(data::Attempt{items[i].id, 1, ran[i].worker, ran[i].start, ran[i].end,
                                       data::Outcome::kSucceeded, 0, "", std::nullopt, std::nullopt, std::nullopt, ""});
    }
    data::Run run;
    run.name = "as-a-pool";
    run.source = data::RunSource::kRecorded;
    store.add_run(run, items, attempts);
  }
  CommandResult shown = run_cli("show --store " + path_ + " as-a-pool");
  CommandResult replayed = run_cli("simulate --store " + path_ + " --run as-a-pool --workers 2");
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  // Peak 2 busy: never below 1 until the end; w000 alone from 10 s to 11 s; the last 1.1 s holds
  // 1.1 + 0.1 s of work on 2 workers.
  std::vector<std::string> expected = {"tail: < 10% of peak busy = 0 s", "tail: last attempt alone = 1 s",
                                       "tail: utilisation last 10% = 54.5 %"};
  EXPECT_EQ(tail_rows(shown.output), expected) << shown.output;
  EXPECT_EQ(tail_rows(replayed.output), expected) << replayed.output;
  // The simulated run, stored, shows the same tail again.
  CommandResult stored = run_cli("show --store " + path_ + " 3");
  EXPECT_EQ(tail_rows(stored.output), expected) << stored.output;
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
  EXPECT_NE(r.output.find("millrace: --policy: greedy not in {fixed-pool,partial,autoscale,job-per-item}"),
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
