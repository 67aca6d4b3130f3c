// End-to-end tests of `millrace compare` and `millrace plan` on a synthetic cost model in a
// fresh trace store: byte-identical output for equal seeds and any thread count, clear errors,
// stored results, and the plan's hand-computed answer.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "data/cost_model.h"
#include "data/sqlite_db.h"
#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"

namespace millrace::cli {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

std::int64_t rows_of(const std::string& store_path, const std::string& table) {
  data::TraceStore store = data::TraceStore::open_existing(store_path);
  data::Statement count(store.handle(), store_path, "SELECT count(*) FROM " + table);
  count.step();
  return count.int64(0);
}

class CompareCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string base = (std::filesystem::temp_directory_path() /
                              ("millrace_compare_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())))
                                 .string();
    store_ = base + ".db";
    model_ = base + ".json";
    std::filesystem::remove(store_);
    data::TraceStore::open(store_);
    // 1 s/unit on [0, 800), 4 s/unit on [800, 1000): see tests/sim/comparison_test.cc.
    data::CostModel({{{0, 800}, 0, 1e6}, {{800, 200}, 0, 4e6}}, "units", "synthetic").save(model_);
  }
  void TearDown() override {
    std::filesystem::remove(store_);
    std::filesystem::remove(model_);
  }
  std::string common() const { return "--store " + store_ + " --model " + model_ + " --span 0:999"; }

  std::string store_;
  std::string model_;
};

TEST_F(CompareCommand, EqualSeedsAndAnyThreadCountGiveByteIdenticalOutput) {
  const std::string args = "compare " + common() +
                           " --workers 2,4 --partitioners uniform,cost-balanced,optimal,logarithmic --order plan,lpt"
                           " --replicas 4 --seed 9 --fail-prob 0.2 --startup-latency 1s,20s --no-record";
  const CommandResult one = run_cli(args + " --threads 1");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(run_cli(args + " --threads 1").output, one.output);
  EXPECT_EQ(run_cli(args + " --threads 2").output, one.output);
  EXPECT_NE(one.output.find("cost-balanced"), std::string::npos);
}

TEST_F(CompareCommand, StoresOneRowPerCombination) {
  const CommandResult r = run_cli("compare " + common() + " --workers 2,4 --partitioners uniform,cost-balanced --order plan,lpt");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stored as comparison 1"), std::string::npos) << r.output;
  EXPECT_EQ(rows_of(store_, "comparisons"), 1);
  EXPECT_EQ(rows_of(store_, "comparison_rows"), 8);
}

TEST_F(CompareCommand, UnknownNamesAndBadWorkerCountsAreClearErrors) {
  const struct {
    std::string args;
    std::string names;
  } cases[] = {
      {" --workers 4 --partitioners uniform,bogus", "bogus"},
      {" --workers 4 --policy no-such-policy", "no-such-policy"},
      {" --workers 4,x", "--workers '4,x'"},
      {" --workers 0", "--workers '0'"},
      {" --workers 4 --order sideways", "sideways"},
      {" --workers 4 --replicas 0", "--replicas"},
  };
  for (const auto& c : cases) {
    const CommandResult r = run_cli("compare " + common() + c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_NE(r.output.find("millrace: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.names), std::string::npos) << r.output;
  }
  EXPECT_EQ(rows_of(store_, "comparisons"), 0);
}

TEST_F(CompareCommand, PlanFindsTheFewestWorkersMeetingTheDeadline) {
  // cost-balanced on W workers takes 1,600 / W s (within one unit's work): 1,600 / 11 = 145 s
  // misses 140 s, 1,600 / 12 = 133 s meets it.
  const CommandResult r = run_cli("plan " + common() + " --partitioners cost-balanced --deadline 140s --confidence 1"
                                  " --max-workers 64");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("fewest workers meeting 140s with confidence 1: 12 with cost-balanced"), std::string::npos)
      << r.output;
  EXPECT_EQ(rows_of(store_, "comparisons"), 1);
}

TEST_F(CompareCommand, PlanWithAnUnreachableDeadlineFailsClearly) {
  const CommandResult r = run_cli("plan " + common() + " --deadline 60s --max-workers 16");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("millrace: --deadline 60s: not met with confidence"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("even with 16 workers"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace millrace::cli
