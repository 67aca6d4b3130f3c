// End-to-end tests of the what-if commands on a team's own inputs: ranges files scored by
// `compare --ranges` and simulated by `simulate --model --ranges`, spans outside the model
// refused by partition, compare and plan, and a per-unit cost profile imported with
// `import --format profile`, listed, shown, turned into a model and compared on its own span.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/duration_noise.h"
#include "data/sqlite_db.h"
#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cli {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

class WhatIfCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = scratch_.file("whatif");
    store_ = base_ + ".db";
    model_ = base_ + ".json";
    data::TraceStore::open(store_);
    // 1 s/unit on [0, 800), 4 s/unit on [800, 1000), no start-up cost.
    data::CostModel({{{0, 800}, 0, 1e6}, {{800, 200}, 0, 4e6}}, "units", "synthetic").save(model_);
  }
  std::string file(const std::string& suffix, const std::string& text) const {
    std::ofstream(base_ + suffix) << text;
    return base_ + suffix;
  }
  std::string common() const { return "--store " + store_ + " --model " + model_; }

  test_support::ScratchDir scratch_;
  std::string base_;
  std::string store_;
  std::string model_;
};

TEST_F(WhatIfCommands, CompareScoresRangesFilesAsNamedCandidates) {
  // Two ranges: 0..799 (800 s) and 800..999 (800 s); on 2 workers 800 s, on 1 worker 1,600 s.
  const std::string cuts = file(".txt", "999/200\n799/800\n");
  const std::string same = file(".csv", "first,last\n0,799\n800,999\n");
  const CommandResult r = run_cli("compare " + common() + " --span 0:999 --workers 1,2 --partitioners uniform --ranges " +
                                  cuts + " --ranges mine=" + same + " --json --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json rows = nlohmann::json::parse(r.output)["rows"];
  ASSERT_EQ(rows.size(), 6u) << r.output;
  const std::string stem = std::filesystem::path(cuts).stem().string();
  EXPECT_EQ(rows[2]["partitioner"], stem);
  EXPECT_EQ(rows[2]["workers"], 1);
  EXPECT_EQ(rows[2]["ranges"], 2);
  EXPECT_EQ(rows[2]["makespan_mean_us"], 1600e6);
  EXPECT_EQ(rows[3]["makespan_mean_us"], 800e6);
  EXPECT_EQ(rows[5]["partitioner"], "mine");
  EXPECT_EQ(rows[5]["makespan_mean_us"], 800e6);
  // The contiguous bound on 2 workers: max(the costliest unit 4 s, 1,600 s / 2) = 800 s.
  EXPECT_EQ(rows[5]["contiguous_bound_us"], 800e6);
  EXPECT_DOUBLE_EQ(rows[5]["ratio_to_contiguous_bound"].get<double>(), 1.0);
  // uniform on 2 workers cuts 0..499 and 500..999: 500 s and 1,100 s.
  EXPECT_EQ(rows[1]["makespan_mean_us"], 1100e6);
  EXPECT_NEAR(rows[1]["ratio_to_contiguous_bound"].get<double>(), 1100.0 / 800, 1e-12);
  EXPECT_DOUBLE_EQ(rows[1]["ratio_to_lower_bound"].get<double>(), 1.0);

  // Stored: each row's contiguous bound and quantiles beside it.
  ASSERT_EQ(run_cli("compare " + common() + " --span 0:999 --workers 2 --partitioners uniform --ranges mine=" + same)
                .exit_code,
            0);
  data::TraceStore store = data::TraceStore::open_existing(store_);
  data::Statement spread(store.handle(), store_,
                         "SELECT partitioner, contiguous_bound_us, makespan_p90_us FROM comparison_rows "
                         "JOIN comparison_spread USING (comparison_id, position) ORDER BY position");
  ASSERT_TRUE(spread.step());
  EXPECT_EQ(spread.text(0), "uniform");
  EXPECT_EQ(spread.int64(1), 800'000'000);
  EXPECT_EQ(spread.int64(2), 1'100'000'000);
  ASSERT_TRUE(spread.step());
  EXPECT_EQ(spread.text(0), "mine");
  EXPECT_FALSE(spread.step());
}

TEST_F(WhatIfCommands, BesideARecordedRunACandidateHasOnlyTheAskedOrders) {
  // Recorded tip first on 2 workers: 999/100, 899/100, 799/800 (see compare_command_test.cc).
  const std::string metrics = file(".txt", "999/100|0|0|400s\n899/100|1|0|400s\n799/800|0|0|800s\n");
  ASSERT_EQ(run_cli("import --store " + store_ + " --format stellar-metrics --name rec " + metrics).exit_code, 0);
  const std::string cuts = file(".csv", "first,count\n0,500\n500,500\n");
  const std::string args = "compare " + common() + " --run rec --workers 2 --partitioners '' --ranges mine=" + cuts +
                           " --json --no-record";
  auto rows_of = [](const CommandResult& r) {
    std::vector<std::string> rows;
    const nlohmann::json out = nlohmann::json::parse(r.output);
    for (const nlohmann::json& row : out["rows"]) {
      rows.push_back(row["partitioner"].get<std::string>() + " " + row["order"].get<std::string>());
    }
    return rows;
  };
  const CommandResult asked = run_cli(args + " --order plan");
  ASSERT_EQ(asked.exit_code, 0) << asked.output;
  EXPECT_EQ(rows_of(asked), (std::vector<std::string>{"recorded plan", "recorded tip-first", "recorded lpt", "mine plan"}));
  // No --order: the recorded run's own order (tip first), the candidates' too, and why.
  const CommandResult r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(rows_of(r), (std::vector<std::string>{"recorded tip-first", "recorded lpt", "mine tip-first"}));
  EXPECT_EQ(nlohmann::json::parse(r.output)["queue_order"],
            nlohmann::json({{"orders", "tip-first"},
                            {"why", "run rec handed its ranges out tip first; --order to choose"}}));
}

// With --preset, compare and plan take the deployment's order (stellar-pubnet: tip-first) unless
// --order says otherwise, and say so.
TEST_F(WhatIfCommands, APresetGivesItsDeploymentsQueueOrderAndSaysWhy) {
  const std::string cuts = file(".csv", "first,count\n0,500\n500,500\n");
  const std::string args = "compare " + common() + " --span 0:999 --workers 2 --partitioners uniform --range-count 2"
                           " --ranges mine=" + cuts + " --no-record --preset stellar-pubnet --overlap 0 --align 1";
  const CommandResult r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("queue order: tip-first (the order of preset stellar-pubnet; --order to choose)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find(" plan "), std::string::npos) << r.output;
  const CommandResult asked = run_cli(args + " --order plan");
  ASSERT_EQ(asked.exit_code, 0) << asked.output;
  EXPECT_NE(asked.output.find("queue order: plan (as given (--order))"), std::string::npos) << asked.output;
  const CommandResult plain = run_cli("compare " + common() + " --span 0:999 --workers 2 --partitioners uniform --no-record");
  EXPECT_NE(plain.output.find("queue order: plan (the default: plan order; --order to choose)"), std::string::npos)
      << plain.output;
}

TEST_F(WhatIfCommands, BadRangesFilesAreOneLineErrorsNamingFileAndLine) {
  const std::string overlapping = file(".txt", "999/201\n799/800\n");
  CommandResult r = run_cli("compare " + common() + " --span 0:999 --workers 2 --ranges " + overlapping);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("millrace: " + overlapping + ":1: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("without a declared overlap"), std::string::npos) << r.output;
  const std::string outside = file(".csv", "0,800\n800,300\n");
  r = run_cli("compare " + common() + " --span 0:999 --workers 2 --ranges " + outside);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(outside + ":2: range 1099/300"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("model's span 0:999"), std::string::npos) << r.output;
  r = run_cli("compare " + common() + " --span 0:999 --workers 2 --partitioners uniform --ranges uniform=" + outside);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("candidate name 'uniform'"), std::string::npos) << r.output;
}

TEST_F(WhatIfCommands, SpansOutsideTheModelAreRefusedNotExtrapolated) {
  for (const std::string& command :
       {"compare " + common() + " --span 0:1500 --workers 2", "plan " + common() + " --span 0:1500 --deadline 1h --max-workers 4",
        "partition --span 0:1500 --partitioner uniform --range-count 3 --model " + model_}) {
    const CommandResult r = run_cli(command);
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_NE(r.output.find("millrace: --span 0:1500"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("units 0:1500 reach outside the model's span 0:999 (1000 units)"), std::string::npos)
        << r.output;
  }
  const CommandResult overlap = run_cli("compare " + common() + " --span 0:999 --overlap 5 --workers 2");
  EXPECT_EQ(overlap.exit_code, 1);
  EXPECT_NE(overlap.output.find("--span 0:999 with --overlap 5: units -5:999"), std::string::npos) << overlap.output;
}

TEST_F(WhatIfCommands, SimulateRunsARangesFileOnTheModel) {
  // Declared overlap 100: the work ranges 0..499 (500 s) and 400..999 (400 s + 800 s).
  const std::string cuts = file(".txt", "# overlap 100\n499/500\n999/600\n");
  const CommandResult r = run_cli("simulate --store " + store_ + " --model " + model_ + " --ranges " + cuts +
                                  " --workers 2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json out = nlohmann::json::parse(r.output);
  EXPECT_EQ(out["makespan_us"], 1200e6) << r.output;
  EXPECT_EQ(out["span"]["first"], 100);
  EXPECT_EQ(out["span"]["overlap"], 100);
  EXPECT_TRUE(out.contains("stored_run"));
  const CommandResult missing = run_cli("simulate --store " + store_ + " --ranges " + cuts);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("needs --model"), std::string::npos) << missing.output;
  const CommandResult neither = run_cli("simulate --store " + store_);
  EXPECT_EQ(neither.exit_code, 1);
  EXPECT_NE(neither.output.find("give --run R"), std::string::npos) << neither.output;
}

TEST_F(WhatIfCommands, SimulatedRangesDrawTheirDurationsFromTheModelsNoiseBySeed) {
  // The factor is uniform on [0.5, 1.5]: one range of 1,000 s takes between 500 and 1,500 s.
  data::CostModel noisy({{{0, 1000}, 0, 1e6}}, "units", "synthetic");
  noisy.set_noise(data::DurationNoise({{0, {0.5, 1.5}}}));
  noisy.save(model_);
  const std::string cuts = file(".txt", "999/1000\n");
  const std::string args = "simulate --store " + store_ + " --model " + model_ + " --ranges " + cuts +
                           " --workers 1 --json --no-record --seed ";
  const CommandResult one = run_cli(args + "3");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(run_cli(args + "3").output, one.output);
  const auto makespan = [](const CommandResult& r) { return nlohmann::json::parse(r.output)["makespan_us"].get<double>(); };
  EXPECT_NE(makespan(run_cli(args + "4")), makespan(one));
  EXPECT_GE(makespan(one), 500e6);
  EXPECT_LE(makespan(one), 1500e6);
  EXPECT_EQ(makespan(run_cli(args + "3 --noise off")), 1000e6);
}

TEST_F(WhatIfCommands, AProfileIsImportedListedShownFittedAndComparedOnItsOwnSpan) {
  // 100 units at 2 ms, 10 units at 0.5 s per row (50 ms each), 90 units at 1 ms: 0.79 s in all.
  const std::string csv = file(".profile.csv", "first,count,cost_s\n0,100,0.2\n100,10,0.5\n110,90,0.09\n");
  CommandResult r = run_cli("import --store " + store_ + " --format profile --name series " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("imported cost profile 'series' (3 bins)"), std::string::npos) << r.output;
  r = run_cli("runs --store " + store_);
  EXPECT_NE(r.output.find("cost profiles"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  series: 3 bins over 0:199 (200 units)"), std::string::npos) << r.output;
  r = run_cli("show --store " + store_ + " series");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("span:            0:199 (200 units, 3 bins)"), std::string::npos) << r.output;
  // The densest 2 units (1% of 200) lie in the 50 ms stretch: 0.1 s of 0.79 s.
  EXPECT_NE(r.output.find("densest stretch: 100:101 (2 units)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("12.7% of the work"), std::string::npos) << r.output;
  const std::string model = base_ + "-model.json";
  ASSERT_EQ(run_cli("fit --store " + store_ + " --profile series -o " + model).exit_code, 0);
  r = run_cli("compare --store " + store_ + " --model " + model + " --workers 1 --partitioners uniform --json --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json out = nlohmann::json::parse(r.output);
  EXPECT_EQ(out["span"]["first"], 0);
  EXPECT_EQ(out["span"]["last"], 199);
  EXPECT_EQ(out["rows"][0]["makespan_mean_us"], 790000);
  // A start-up per range given as a duration: one range on one worker takes it once more.
  r = run_cli("fit --store " + store_ + " --profile series --startup 1.5s -o " + model);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("start-up 1.5s per range"), std::string::npos) << r.output;
  r = run_cli("compare --store " + store_ + " --model " + model + " --workers 1 --partitioners uniform --json --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["rows"][0]["makespan_mean_us"], 790000 + 1500000);
  const std::string gap = file(".profile.json", "[\n{\"first\": 0, \"count\": 5, \"unit_cost_us\": 1},\n"
                                                "{\"first\": 6, \"count\": 5, \"unit_cost_us\": 1}\n]\n");
  r = run_cli("import --store " + store_ + " --format profile " + gap);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("millrace: " + gap + ":3: gap: units 5..5"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace millrace::cli
