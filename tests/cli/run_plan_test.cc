// `run --plan COMPARISON[:ROW]` carries out what a stored plan or compare chose (its partition,
// worker count, order, policy and model), links the run to it, and `show` and the end of the run
// print predicted vs actual; what cannot be carried out is refused before anything is recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/readable_duration.h"
#include "data/trace_store.h"
#include "tests/cli/cli_process.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/store_query.h"

namespace millrace {
namespace {

using cli_test::CliResult;

class RunPlanTest : public cli_test::CliRunTest {
 protected:
  void SetUp() override {
    CliRunTest::SetUp();
    model = (dir / "model.json").string();
    // 1 ms a unit on [0, 800), 4 ms on [800, 1000): 1.6 s of work in all.
    data::CostModel({{{0, 800}, 0, 1e3}, {{800, 200}, 0, 4e3}}, "units", "synthetic").save(model);
    data::TraceStore::open(store);
  }

  std::size_t runs() { return data::TraceStore::open(store).runs().size(); }

  std::string model;
};

TEST_F(RunPlanTest, APlansAnswerRunsAsChosenAndShowSetsItsPredictionAgainstWhatHappened) {
  const CliResult planned = run({"plan", "--store", store, "--model", model, "--span", "0:999", "--deadline", "1s",
                                 "--max-workers", "8", "--partitioners", "uniform", "--range-count", "20",
                                 "--replicas", "3", "--order", "tip-first", "--json", "--quiet"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const nlohmann::json answer = nlohmann::json::parse(planned.out).at("answer");
  const int workers = answer.at("workers").get<int>();

  const std::string marker = (dir / "ran").string();
  const CliResult ran = run({"run", "--store", store, "--plan", "1", "--command", "echo {first} {count} >> " + marker});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_NE(ran.err.find("(the plan's answer): uniform, 20 ranges on " + std::to_string(workers) +
                         " workers, tip-first order, fixed-pool"),
            std::string::npos)
      << ran.err;

  // The partition plan simulated: 20 uniform ranges of 50 units over 0..999, cut independently here.
  std::set<std::string> expected;
  for (int first = 0; first < 1000; first += 50) expected.insert(std::to_string(first) + " 50");
  const std::vector<std::string> lines = cli_test::lines_of(cli_test::read_text(marker));
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()), expected);
  EXPECT_EQ(lines.size(), 20u);

  data::TraceStore trace = data::TraceStore::open(store);
  const data::Run record = trace.run(1);
  EXPECT_EQ(record.partitioner, "uniform");
  EXPECT_EQ(record.policy, "fixed-pool");
  const nlohmann::json parameters = nlohmann::json::parse(record.parameters);
  EXPECT_EQ(parameters.at("workers"), workers);
  EXPECT_EQ(parameters.at("order"), "tip-first");
  EXPECT_EQ(parameters.at("plan").at("comparison"), 1);
  EXPECT_EQ(parameters.at("plan").at("makespan_p50_us"), answer.at("makespan_p50_us"));
  for (const data::WorkItem& item : trace.items(1)) {
    EXPECT_EQ(item.predicted, item.range->first < 800 ? 50'000 : 200'000) << item.id;  // from the plan's model
  }

  const CliResult shown = run({"show", "--store", store, "1"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const std::string predicted =
      "predicted p50 " + data::readable_duration(answer.at("makespan_p50_us").get<data::Micros>());
  EXPECT_NE(shown.out.find("  predicted vs actual:\n"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("comparison 1 row "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find(predicted), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("    ranges:       20 with a prediction;"), std::string::npos) << shown.out;
  EXPECT_NE(ran.out.find(shown.out), std::string::npos) << "the run ends with what show prints:\n" << ran.out;
}

// A run started with a model and no plan predicts its own makespan as it starts: its partition,
// worker count, order and policy simulated with the model (no noise in this one, so every replica
// gives the list schedule worked out here).
TEST_F(RunPlanTest, ARunWithAModelPredictsItsOwnMakespanAsItStarts) {
  const CliResult ran = run({"run", "--store", store, "--model", model, "--span", "0:999", "--partitioner", "uniform",
                             "--range-count", "20", "--workers", "2", "--order", "tip-first", "--command", "true"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  // Tip first: the four 200 ms ranges of [800, 1000) two by two (400 ms), then the sixteen 50 ms
  // ones eight a worker (400 ms more).
  std::vector<data::Micros> ranges(4, 200'000);
  ranges.insert(ranges.end(), 16, 50'000);
  std::vector<data::Micros> worker_free(2, 0);
  for (data::Micros duration : ranges) *std::min_element(worker_free.begin(), worker_free.end()) += duration;
  const data::Micros expected = *std::max_element(worker_free.begin(), worker_free.end());
  ASSERT_EQ(expected, 800'000);

  const nlohmann::json predicted = nlohmann::json::parse(data::TraceStore::open(store).run(1).parameters).at("predicted");
  EXPECT_EQ(predicted.at("replicas"), 20);
  EXPECT_EQ(predicted.at("makespan_p10_us"), expected);
  EXPECT_EQ(predicted.at("makespan_p50_us"), expected);
  EXPECT_EQ(predicted.at("makespan_p90_us"), expected);
  EXPECT_NE(predicted.at("cluster").get<std::string>().find("has no fitted cluster"), std::string::npos) << predicted;
  const CliResult shown = run({"show", "--store", store, "1"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find(" actual; its plan simulated at the start (20 replicas) predicted p50 800 ms (p10 800 ms, "
                           "p90 800 ms): "),
            std::string::npos)
      << shown.out;
  // The phases each local attempt recorded: submitted, its slot granted, its process spawned.
  EXPECT_NE(shown.out.find("  phases:         submitted -> placed p50 "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("(20 of 20 attempts recorded them)\n"), std::string::npos) << shown.out;

  // Without a model nothing is predicted, and show says how to have it.
  const CliResult plain = run({"run", "--store", store, "--span", "0:999", "--partitioner", "uniform",
                               "--range-count", "4", "--command", "true"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(data::TraceStore::open(store).run(2).parameters).contains("predicted"));
}

TEST_F(RunPlanTest, WhatCannotBeCarriedOutIsRefusedBeforeAnythingIsRecorded) {
  ASSERT_EQ(run({"compare", "--store", store, "--model", model, "--span", "0:999", "--workers", "2,4",
                 "--partitioners", "uniform", "--range-count", "10", "--quiet"})
                .exit_code,
            0);
  const auto refused = [&](const std::vector<std::string>& extra, const std::string& message) {
    std::vector<std::string> args{"run", "--store", store, "--command", "true"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult result = run(args);
    EXPECT_NE(result.exit_code, 0) << result.out;
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
  };
  refused({"--plan", "7"}, "no comparison 7");
  refused({"--plan", "1"}, "millrace: --plan 1: is a compare: it ranks rows but chooses none; name one, e.g. 1:1");
  refused({"--plan", "1:3"}, "millrace: comparison 1 row 3: no such row: it has 2 rows, numbered from 1");
  refused({"--plan", "1:0"}, "millrace: --plan 1:0: expected COMPARISON or COMPARISON:ROW, positive whole numbers");
  refused({"--plan", "x"}, "expected COMPARISON or COMPARISON:ROW");
  refused({"--plan", "1:1", "--workers", "3"}, "millrace: --workers excludes --plan");
  EXPECT_EQ(runs(), 0u);

  const CliResult second = run({"run", "--store", store, "--plan", "1:2", "--command", "true"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("comparison 1 row 2: uniform, 10 ranges on 4 workers, plan order, fixed-pool"),
            std::string::npos)
      << second.err;
}

// run --plan used whatever was at the plan's model path: replaced by another model, the run went
// ahead and set that model's predictions against the plan's makespan. The plan keeps its model's
// SHA-256, and a file that is no longer that model is refused before anything is recorded; put
// back, the plan runs.
TEST_F(RunPlanTest, APlanWhoseModelFileWasReplacedIsRefusedBeforeAnythingIsRecorded) {
  ASSERT_EQ(run({"plan", "--store", store, "--model", model, "--span", "0:999", "--deadline", "1s", "--max-workers",
                 "8", "--partitioners", "uniform", "--range-count", "20", "--replicas", "3", "--quiet"})
                .exit_code,
            0);
  // What it keeps is the hash of the text it read, as sha256sum says of the file.
  const test_support::CommandResult sum = test_support::run_shell("sha256sum " + model);
  ASSERT_EQ(sum.exit_code, 0);
  EXPECT_EQ(cli_test::query_store(store, "SELECT json_extract(parameters, '$.model_sha256') FROM comparisons"),
            std::vector<std::string>{sum.output.substr(0, 64)});
  const std::string original = cli_test::read_text(model);
  data::CostModel({{{0, 1000}, 0, 2.0}}, "units", "another").save(model);  // 2 us a unit
  const CliResult refused = run({"run", "--store", store, "--plan", "1", "--command", "true"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("millrace: --plan 1: was made with the cost model " + model + " of SHA-256 "),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find(", and that file now holds another (SHA-256 "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("plan again with this model, or put back the one the plan was made with"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(runs(), 0u);

  std::ofstream(model, std::ios::trunc) << original;
  const CliResult ran = run({"run", "--store", store, "--plan", "1", "--command", "true"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.err.find("warning"), std::string::npos) << ran.err;
}

}  // namespace
}  // namespace millrace
