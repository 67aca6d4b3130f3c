// End-to-end: every numeric and named option of the commands is range-checked while the command
// line is parsed, and requests too big for memory are refused with the estimate before anything
// is allocated; each message names the option and the value, exits 1, and leaves the trace
// store as it was (no empty run, no stored simulation or comparison).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "data/cost_model.h"
#include "data/sqlite_db.h"
#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cli {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

struct Probe {
  std::string args;       // after the command's own required options
  std::string expected;   // a fragment the error line must hold (the option and its value)
};

class OptionChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_.path();
    store_ = (dir_ / "trace.db").string();
    model_ = (dir_ / "model.json").string();
    // A recorded run of 4 ranges of 10 units, 1 s each, to simulate and compare on.
    data::TraceStore store = data::TraceStore::open(store_);
    data::Run run;
    run.name = "recorded";
    run.source = data::RunSource::kReal;
    run.partitioner = "uniform";
    run.policy = "fixed-pool";
    std::vector<data::WorkItem> items;
    std::vector<data::Attempt> attempts;
    for (int i = 0; i < 4; ++i) {
      data::WorkItem& item = items.emplace_back();
      item.id = std::to_string(10 * i) + "-" + std::to_string(10 * i + 9);
      item.range = data::Range{10 * i, 10};
      data::Attempt& attempt = attempts.emplace_back();
      attempt.item_id = item.id;
      attempt.worker = "w0";
      attempt.start = i * data::kMicrosPerSecond;
      attempt.end = (i + 1) * data::kMicrosPerSecond;
    }
    store.add_run(run, items, attempts);
    data::CostModel({{{0, 40}, 0, 1e5}}, "units", "synthetic").save(model_);
  }

  // Runs `args`, expects exit 1 with one error line holding `expected`, and the store unchanged.
  void expect_refused(const std::string& args, const std::string& expected, const std::string& prefix = "") {
    const CommandResult result = run_cli(args, prefix);
    EXPECT_EQ(result.exit_code, 1) << args << "\n" << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << args << "\n" << result.output;
    EXPECT_EQ(result.output.rfind("millrace", 0), 0u) << "one millrace: line\n" << result.output;
    EXPECT_EQ(store_rows(), (std::vector<std::int64_t>{1, 4, 4, 0})) << args;
  }

  // Runs, items, attempts and comparison rows in the store.
  std::vector<std::int64_t> store_rows() const {
    data::TraceStore store = data::TraceStore::open_existing(store_);
    std::vector<std::int64_t> rows;
    for (const char* table : {"runs", "items", "attempts", "comparisons"}) {
      data::Statement count(store.handle(), store_, std::string("SELECT count(*) FROM ") + table);
      count.step();
      rows.push_back(count.int64(0));
    }
    return rows;
  }

  std::string run_command() const {
    return "run --cluster local --store " + store_ + " --partitioner uniform --command true ";
  }
  std::string simulate_command() const { return "simulate --store " + store_ + " --run recorded "; }
  std::string compare_command() const { return "compare --store " + store_ + " --model " + model_ + " "; }
  std::string plan_command() const { return "plan --store " + store_ + " --model " + model_ + " "; }

  test_support::ScratchDir scratch_;
  std::filesystem::path dir_;
  std::string store_;
  std::string model_;
};

TEST_F(OptionChecks, StoreRowsCountedAsSetUp) { EXPECT_EQ(store_rows(), (std::vector<std::int64_t>{1, 4, 4, 0})); }

TEST_F(OptionChecks, RunOptionsOutOfRangeAreRefusedNamingOptionAndValueBeforeAnythingIsRecorded) {
  const std::vector<Probe> probes = {
      {"--range-count 4 --timeout 1e-9", "--timeout: '1e-9' is shorter than 1us"},
      {"--range-count 4 --timeout -5", "--timeout: '-5' is negative"},
      {"--range-count 4 --timeout inf", "--timeout: 'inf' not a finite duration"},
      {"--range-count 4 --timeout 1e300", "--timeout: '1e300' is longer than the longest accepted, 8784h"},
      {"--range-count 4 --kill-grace nan", "--kill-grace: 'nan' not a finite duration"},
      {"--range-count 4 --backoff 1e300", "--backoff: '1e300' is longer than the longest accepted, 600s"},
      {"--range-count 4 --status-port 99999", "--status-port: 99999 is out of range (expected a whole number from 0 to 65535)"},
      {"--range-count 4 --status-port -1", "--status-port: -1 is out of range"},
      {"--range-count 4 --policy fixed-poool", "--policy: fixed-poool not in"},
      {"--range-count 4 --workers 0", "--workers: 0 is out of range (expected a whole number from 1 to 2147483647)"},
      {"--range-count 4 --workers 99999999999", "--workers: 99999999999 is out of range"},
      {"--range-count 4 --max-attempts 0", "--max-attempts: 0 is out of range"},
      {"--range-count 4 --max-attempts 3x", "--max-attempts: '3x' is not a whole number"},
      {"--range-count 0", "--range-count: 0 is out of range"},
      {"--range-count 4 --align 0", "--align: 0 is out of range"},
      {"--range-count 4 --overlap -1", "--overlap: -1 is out of range"},
      {"--range-length 99999999999999999999", "--range-length: 99999999999999999999 is out of range"},
      {"--range-count 4 --history-failed -1", "--history-failed: -1 is out of range"},
      {"--range-count 4 --active-deadline 99999999999",
       "--active-deadline: '99999999999' is longer than the longest accepted, 8784h"},
      {"--range-count 4 --active-deadline 1500ms", "--active-deadline: '1500ms' is not a whole number of seconds"},
      {"--range-count 4 --api-patience -1", "--api-patience: '-1' is negative"},
      {"--range-count 4 --lease-port 65536", "--lease-port: 65536 is out of range"},
      {"--range-count 4 --heartbeat 1e300", "--heartbeat: '1e300' is longer than the longest accepted"},
      {"--range-count 4 --mode pool", "--mode: pool not in"},
      {"--span=-9999999999999999999:1 --range-count 4", "--span -9999999999999999999:1: expected FIRST:LAST"},
      {"--span=-4611686018427387904:1 --range-count 4", "--span -4611686018427387904:1: unit numbers are limited to"},
  };
  for (const Probe& probe : probes) {
    const bool spanned = probe.args.find("--span") != std::string::npos;
    expect_refused(run_command() + (spanned ? "" : "--span 0:39 ") + probe.args, probe.expected);
  }
}

TEST_F(OptionChecks, SecondsOptionsTakeDurationsAndARunRecordsTheirValue) {
  const CommandResult result =
      run_cli(run_command() + "--span 0:39 --range-count 2 --timeout 1.5m --kill-grace 250ms --backoff 2s");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const data::Run run = data::TraceStore::open_existing(store_).run(2);
  EXPECT_NE(run.parameters.find("\"timeout_us\":90000000"), std::string::npos) << run.parameters;
  EXPECT_NE(run.parameters.find("\"kill_grace_us\":250000"), std::string::npos) << run.parameters;
  EXPECT_NE(run.parameters.find("\"backoff_us\":2000000"), std::string::npos) << run.parameters;
}

// --deadline is the wanted makespan (autoscale's deadline) in simulate, compare, plan and run
// alike, given as 90m, 1.5h or bare seconds, and stored in microseconds wherever it is stored.
TEST_F(OptionChecks, TheDeadlineReadsTheSameInEveryCommandAndIsStoredInMicroseconds) {
  const std::string us = "\"deadline_us\":5400000000";
  std::int64_t run_id = 1;
  for (const std::string deadline : {"5400", "90m", "1.5h", "5400s"}) {
    SCOPED_TRACE(deadline);
    CommandResult r = run_cli(simulate_command() + "--policy autoscale --workers 2 --deadline " + deadline);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(data::TraceStore::open_existing(store_).run(++run_id).parameters.find(us), std::string::npos);

    r = run_cli(run_command() + "--span 0:39 --range-count 2 --workers 2 --policy autoscale --deadline " + deadline);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(data::TraceStore::open_existing(store_).run(++run_id).parameters.find(us), std::string::npos);

    r = run_cli(plan_command() + "--span 0:39 --max-workers 2 --json --no-record --deadline " + deadline);
    EXPECT_NE(r.output.find("\"deadline_us\": 5400000000"), std::string::npos) << r.output;

    r = run_cli(compare_command() + "--span 0:39 --workers 2 --policy autoscale --deadline " + deadline);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    data::TraceStore store = data::TraceStore::open_existing(store_);
    data::Statement last(store.handle(), store_, "SELECT parameters FROM comparisons ORDER BY id DESC LIMIT 1");
    ASSERT_TRUE(last.step());
    EXPECT_NE(last.text(0).find(us), std::string::npos) << last.text(0);
  }
}

TEST_F(OptionChecks, AutoscaleRunsNeedADeadlineAndOtherPoliciesTakeNone) {
  expect_refused(run_command() + "--span 0:39 --range-count 2 --policy autoscale",
                 "millrace: --policy autoscale: needs --deadline, the wanted end of the run from its start (e.g. 48h)");
  expect_refused(run_command() + "--span 0:39 --range-count 2 --deadline 1h",
                 "millrace: --policy fixed-pool: --deadline, --scale-up-delay and --min-workers apply to --policy "
                 "autoscale only");
  expect_refused(run_command() + "--span 0:39 --range-count 2 --policy autoscale --deadline 2x",
                 "--deadline: '2x' not a duration");
}

TEST_F(OptionChecks, AStatusPortThatCannotBeHadStopsTheRunBeforeAnythingIsRecorded) {
  // A port this test holds.
  const int held = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(held, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(held, 1), 0);
  socklen_t length = sizeof address;
  getsockname(held, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string port = std::to_string(ntohs(address.sin_port));
  expect_refused(run_command() + "--span 0:39 --range-count 4 --status-port " + port, "127.0.0.1:" + port);
  close(held);
}

TEST_F(OptionChecks, SimulateDurationsAndCountsOutOfRangeAreRefusedNamingOptionAndValue) {
  const std::vector<Probe> probes = {
      {"--backoff 1e300s", "--backoff: '1e300s' is longer than the longest accepted, 600s"},
      {"--deadline nan", "--deadline: 'nan' not a finite duration"},
      {"--startup-latency 1s,inf", "--startup-latency 'inf': not a finite duration"},
      {"--create-overhead -1s", "--create-overhead: '-1s' is negative"},
      {"--scale-up-delay 1e-9", "--scale-up-delay: '1e-9' is shorter than 1us"},
      {"--delete-overhead 5parsecs", "--delete-overhead: '5parsecs' not a duration"},
      {"--api-down 1h-1e300h", "--api-down '1e300h': not a finite duration"},
      {"--api-down 1h-1e9h", "--api-down '1e9h': is longer than the longest accepted, 8784h"},
      {"--workers 64 --node-loss 99999999999@1h", "--node-loss '99999999999@1h': expected NODE@TIME with NODE from 0 to 63"},
      {"--workers 64 --node-loss 64@1h", "--node-loss '64@1h': expected NODE@TIME with NODE from 0 to 63"},
      {"--fail-prob 1e300", "--fail-prob: 1e300 is out of range (expected a finite number from 0 to 1)"},
      {"--fail-prob nan", "--fail-prob: nan is out of range"},
      {"--workers -3", "--workers: -3 is out of range"},
      {"--slots-per-node 0", "--slots-per-node: 0 is out of range"},
      {"--max-attempts 0", "--max-attempts: 0 is out of range"},
      {"--policy nope", "--policy: nope not in"},
      {"--seed=-1", "--seed: -1 is out of range (expected a whole number from 0 to 18446744073709551615)"},
      {"--seed 18446744073709551616", "--seed: 18446744073709551616 is out of range"},
      {"--seed 99999999999999999999999", "--seed: 99999999999999999999999 is out of range"},
      {"--seed 12x", "--seed: '12x' is not a whole number (expected 0 to 18446744073709551615)"},
  };
  for (const Probe& probe : probes) expect_refused(simulate_command() + probe.args, probe.expected);
}

TEST_F(OptionChecks, CompareAndPlanOptionsOutOfRangeAreRefusedNamingOptionAndValue) {
  const std::vector<Probe> probes = {
      {"--replicas 0", "--replicas: 0 is out of range"},
      {"--fail-prob nan", "--fail-prob: nan is out of range"},
      {"--fail-prob 1", "--fail-prob 1.000000: must be in [0, 1)"},
      {"--startup-latency 1e9h", "--startup-latency '1e9h': is longer than the longest accepted"},
      {"--threads 99999", "--threads: 99999 is out of range"},
      {"--floor 0", "--floor: 0 is out of range"},
      {"--workers 0,4", "--workers '0,4': expected comma-separated positive worker counts"},
      {"--seed=-1", "--seed: -1 is out of range (expected a whole number from 0 to 18446744073709551615)"},
      {"--seed 99999999999999999999999", "--seed: 99999999999999999999999 is out of range"},
  };
  for (const Probe& probe : probes) expect_refused(compare_command() + "--span 0:39 " + probe.args, probe.expected);
  const std::string plan = plan_command() + "--span 0:39 ";
  expect_refused(plan + "--deadline 1h --max-workers 0", "--max-workers: 0 is out of range");
  expect_refused(plan + "--deadline 1h --max-workers 4 --confidence 2", "--confidence: 2 is out of range");
  expect_refused(plan + "--deadline 1e9h --max-workers 4", "--deadline: '1e9h' is longer than the longest accepted");
  expect_refused(plan + "--deadline 1h --max-workers 4 --seed=-1", "--seed: -1 is out of range");
}

TEST_F(OptionChecks, PartitionFitAndWatchOptionsOutOfRangeAreRefusedNamingOptionAndValue) {
  expect_refused("partition --span 0:99 --partitioner uniform --range-count -1", "--range-count: -1 is out of range");
  expect_refused("partition --tip 99999999999999999999 --partitioner uniform --range-count 4", "--tip: 99999999999999999999");
  expect_refused("partition --span 0:99 --partitioner logarithmic --workers 0 --floor 1", "--workers: 0 is out of range");
  expect_refused("fit --store " + store_ + " --runs recorded --bins 0 -o " + model_, "--bins: 0 is out of range");
  expect_refused("fit --store " + store_ + " --runs recorded --folds 1 -o " + model_, "--folds: 1 is out of range");
  expect_refused("fit --store " + store_ + " --profile p --startup nan -o " + model_, "--startup: 'nan'");
  expect_refused("watch --redis 127.0.0.1:1 --store " + store_ + " --run r --poll 0", "--poll 0s: is shorter than 0.001s");
}

// Sizes: refused up front with the estimate, against a documented cap (MILLRACE_MEMORY_LIMIT)
// here, so the test does not depend on this machine's memory.
TEST_F(OptionChecks, PartitionsTooBigForMemoryAreRefusedWithTheEstimate) {
  const std::string cap = "MILLRACE_MEMORY_LIMIT=1G ";
  expect_refused("partition --span 0:1999999999 --partitioner uniform --range-count 1000000000",
                 "millrace: --range-count 1000000000: needs about", cap);
  const CommandResult result =
      run_cli("partition --span 0:1999999999 --partitioner uniform --range-count 1000000000", cap);
  EXPECT_NE(result.output.find("of memory for 1000000000 ranges of 2000000000 units"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("more than the 1.0 GB available (MILLRACE_MEMORY_LIMIT)"), std::string::npos)
      << result.output;
  expect_refused("partition --span 0:1999999999 --partitioner uniform --range-length 2",
                 "--range-length 2: needs about", cap);
  expect_refused("partition --span 0:1999999999 --partitioner logarithmic --workers 4 --floor 1",
                 "--floor 1: needs about", cap);
  expect_refused(run_command() + "--span 0:1999999999 --range-count 1000000000", "--range-count 1000000000: needs about", cap);
  expect_refused(run_command() + "--span 0:39 --range-count 4 --workers 2000000000", "--workers 2000000000: needs about", cap);
  // compare and plan refuse spans outside their model first: a model of the whole span.
  const std::string wide_model = (dir_ / "wide-model.json").string();
  data::CostModel({{{0, 2'000'000'000}, 0, 1e-3}}, "units", "synthetic").save(wide_model);
  const std::string on_wide_model = "--store " + store_ + " --model " + wide_model + " --span 0:1999999999 ";
  expect_refused("compare " + on_wide_model + "--range-count 1000000000 --workers 4",
                 "--range-count 1000000000: needs about", cap);
  expect_refused("plan " + on_wide_model + "--deadline 1h --range-length 1 --max-workers 4",
                 "--range-length 1: needs about", cap);
  // Without a cap, against this machine's MemAvailable: 10^12 ranges fit nowhere.
  const CommandResult huge = run_cli("partition --span 0:999999999999 --partitioner uniform --range-length 1");
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_NE(huge.output.find("(MemAvailable in /proc/meminfo)"), std::string::npos) << huge.output;
  // A request that fits is not refused.
  const CommandResult fits = run_cli("partition --span 0:999 --partitioner uniform --range-count 10", cap);
  EXPECT_EQ(fits.exit_code, 0) << fits.output;
}

TEST_F(OptionChecks, SimulationsTooBigForMemoryAreRefusedWithTheEstimate) {
  const std::string cap = "MILLRACE_MEMORY_LIMIT=1G ";
  expect_refused(simulate_command() + "--max-attempts 1000000000 --fail-prob 1",
                 "millrace: --max-attempts 1000000000 with --fail-prob 1: needs about", cap);
  const CommandResult result = run_cli(simulate_command() + "--max-attempts 1000000000 --fail-prob 1", cap);
  EXPECT_NE(result.output.find("for 4000000000 expected attempts of 4 items"), std::string::npos) << result.output;
  expect_refused(simulate_command() + "--workers 2000000000", "--workers 2000000000 x --slots-per-node 1: needs about",
                 cap);
  expect_refused(compare_command() + "--span 0:39 --workers 2000000000 --partitioners uniform --range-count 4",
                 "--workers 2000000000: needs about", cap);
  expect_refused(compare_command() + "--span 0:39 --workers 4 --replicas 2000000000", "--replicas 2000000000: needs about",
                 cap);
  // With failures unlikely, a high attempt cap costs nothing: the expected attempts are few.
  const CommandResult fits =
      run_cli(simulate_command() + "--max-attempts 1000000000 --fail-prob 0.5 --workers 2 --no-record", cap);
  EXPECT_EQ(fits.exit_code, 0) << fits.output;
}

TEST_F(OptionChecks, RunningOutOfMemoryAnywayNamesTheCommandAndTheStep) {
  // Address space capped at 300 MB: the memory check (MemAvailable, or the cap of 4 GB) passes,
  // the partition's allocations fail.
  const CommandResult result = run_cli("partition --span 0:99999999 --partitioner uniform --range-count 20000000 -o /dev/null",
                                       "ulimit -v 300000; MILLRACE_MEMORY_LIMIT=4G ");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("millrace partition: out of memory while cutting 100000000 units into ranges "
                               "(std::bad_alloc)"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace millrace::cli
