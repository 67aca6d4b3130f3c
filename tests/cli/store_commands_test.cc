// End-to-end tests of the store subcommands (import, runs, show, export): they run the
// millrace binary and check its output, exit code and the store it leaves.
#include <sqlite3.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "data/trace_store.h"
#include "tests/data/store_fixture.h"

namespace millrace::cli {
namespace {

using data::testing::read_bytes;
using data::testing::row_counts;
using data::testing::TempDir;
using data::testing::write_file;

const std::string kSets = std::string(MILLRACE_SOURCE_DIR) + "/data/sets/";
const std::string kStellarCsv = kSets + "stellar-pcv2-2024-11/pcv2_run_2024-11_per_range_timings.csv";

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class Cli : public ::testing::Test {
 protected:
  Result millrace(const std::string& args) {
    std::string out = dir_.file("stdout"), err = dir_.file("stderr");
    int status = std::system((std::string(MILLRACE_CLI) + " " + args + " >" + out + " 2>" + err).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_bytes(out), read_bytes(err)};
  }
  void expect_one_line_error(const Result& r, const std::string& needle) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("millrace: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
  std::string store() const { return dir_.file("s.db"); }
  TempDir dir_;
};

TEST_F(Cli, ImportsTheBundledRecordingAndShowsListsAndExportsIt) {
  auto imported = millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv + " --name pcv2");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("imported run 1 'pcv2': 3,396 items, 3,396 attempts"), std::string::npos) << imported.out;

  auto runs = millrace("runs --store " + store());
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("pcv2"), std::string::npos);
  EXPECT_NE(runs.out.find("3,396"), std::string::npos) << runs.out;

  auto shown = millrace("show --store " + store() + " pcv2");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("items:          3,396"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("total work:     4151.26 h"), std::string::npos) << shown.out;
  // The range as every output names one: FIRST-LAST (the recording's 38486463/16320).
  EXPECT_NE(shown.out.find("longest:        38470144-38486463, 9.93 h on worker 56"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("workers:        192"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("tail: < 10% of peak busy     3.04 h (10,956 s)"), std::string::npos) << shown.out;

  auto exported = millrace("export --store " + store() + " 1 --format csv -o " + dir_.file("out.csv"));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::string csv = read_bytes(dir_.file("out.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3397);

  auto reimported = millrace("import --store " + store() + " --format csv " + dir_.file("out.csv"));
  ASSERT_EQ(reimported.exit_code, 0) << reimported.err;
  auto s = data::TraceStore::open(store());
  EXPECT_EQ(s.attempts(2), s.attempts(1));
  EXPECT_EQ(s.items(2), s.items(1));
  EXPECT_EQ(s.run(2).units, "ledgers");

  auto json = millrace("export --store " + store() + " 1 --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind("{", 0), 0u);
}

TEST_F(Cli, EverySubcommandHasHelp) {
  for (const char* sub : {"import", "runs", "show", "export"}) {
    auto help = millrace(std::string(sub) + " --help");
    EXPECT_EQ(help.exit_code, 0) << sub;
    EXPECT_NE(help.out.find("--store"), std::string::npos) << sub;
  }
}

TEST_F(Cli, AMalformedFileIsOneErrorLineAndLeavesTheStoreUnchanged) {
  ASSERT_EQ(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv).exit_code, 0);
  std::vector<std::int64_t> before;
  {
    auto s = data::TraceStore::open(store());
    before = row_counts(s);
  }
  std::string bad = dir_.file("bad.csv");
  write_file(bad, "end_ledger,ledger_count,first_ledger,worker_id,tx_apply_ms,total_s\n6463,16320,-9856,1,0.7,19\n"
                  "22463,16320,6144,2,9.2,-44\n");
  expect_one_line_error(millrace("import --store " + store() + " --format stellar-csv " + bad),
                        bad + ":3: negative total_s");
  auto s = data::TraceStore::open(store());
  EXPECT_EQ(row_counts(s), before);
}

TEST_F(Cli, AnUnknownFormatIsOneErrorLineAndCreatesNoStore) {
  expect_one_line_error(millrace("import --store " + store() + " --format xml " + kStellarCsv),
                        "--format: unknown import format 'xml' (known: csv, json, swf,");
  EXPECT_FALSE(std::filesystem::exists(store()));
}

TEST_F(Cli, AnUnknownRunIsOneErrorLine) {
  ASSERT_EQ(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv).exit_code, 0);
  expect_one_line_error(millrace("show --store " + store() + " 7"), "no run 7");
  expect_one_line_error(millrace("export --store " + store() + " nope"), "no run with id or name 'nope'");
}

TEST_F(Cli, ImportingUnderANameAnotherRunHasIsRefusedNamingItAndWritesNothing) {
  ASSERT_EQ(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv + " --name pcv2").exit_code, 0);
  std::vector<std::int64_t> before;
  {
    auto s = data::TraceStore::open_for_reading(store());
    before = row_counts(s);
  }
  expect_one_line_error(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv + " --name pcv2"),
                        store() + ": a run named 'pcv2' is already in this store (run 1): give the new run another --name");
  EXPECT_EQ(row_counts(data::TraceStore::open_for_reading(store())), before);
  auto renamed = millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv + " --name pcv2-again");
  ASSERT_EQ(renamed.exit_code, 0) << renamed.err;
  EXPECT_NE(renamed.out.find("imported run 2 'pcv2-again'"), std::string::npos) << renamed.out;
}

// A store made before names were unique may hold two runs of one name: every lookup by that name
// (show, export, fit, simulate) names both runs, and their ids still find them.
TEST_F(Cli, ANameTwoOlderRunsShareIsOneErrorLineNamingBothAndIdsStillWork) {
  ASSERT_EQ(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv + " --name pcv2").exit_code, 0);
  ASSERT_EQ(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv + " --name x").exit_code, 0);
  {
    auto s = data::TraceStore::open(store());
    ASSERT_EQ(sqlite3_exec(s.handle(), "UPDATE runs SET name = 'pcv2' WHERE id = 2", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  const std::string ambiguous = store() + ": run name 'pcv2' matches runs 1 and 2; name the run by its id";
  expect_one_line_error(millrace("show --store " + store() + " pcv2"), ambiguous);
  expect_one_line_error(millrace("export --store " + store() + " pcv2 --format csv"), ambiguous);
  expect_one_line_error(millrace("fit --store " + store() + " --runs pcv2 --bins 16 -o " + dir_.file("m.json")), ambiguous);
  expect_one_line_error(millrace("simulate --store " + store() + " --run pcv2 --no-record"), ambiguous);
  auto shown = millrace("show --store " + store() + " 2");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("items:          3,396"), std::string::npos) << shown.out;
  auto fit = millrace("fit --store " + store() + " --runs 1 --bins 16 -o " + dir_.file("m.json"));
  EXPECT_EQ(fit.exit_code, 0) << fit.err;
}

TEST_F(Cli, ShowGroupsFailedAttemptsByExitCodeAndReasonAndNamesTheLast) {
  write_file(dir_.file("failing.csv"),
             "item,worker,start_s,end_s,outcome,exit_code,failure_reason\n"
             "a,w1,0,1,failed,3,exit\na,w1,1,2,failed,3,exit\na,w1,2,3,failed,3,exit\n"
             "b,w2,0,5,failed,0,timeout\nb,w2,5,10,failed,0,timeout\n"
             "c,w3,0,1,failed,137,OOMKilled\nc,w3,1,2,cancelled,0,cancelled\nc,w3,2,3,succeeded,0,\n"
             "d,w4,0,4,succeeded,0,\n");
  ASSERT_EQ(millrace("import --store " + store() + " --format csv " + dir_.file("failing.csv")).exit_code, 0);
  auto shown = millrace("show --store " + store() + " failing");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("  attempts:       9 (7 failed or cancelled)\n"
                           "  failures:       7 attempts: exit 3 x 3, timeout x 2, OOMKilled (exit 137) x 1, 1 other "
                           "kind x 1; last: b attempt 2, timeout\n"),
            std::string::npos)
      << shown.out;
  // A run whose every attempt failed says so the same way.
  write_file(dir_.file("all-failed.csv"), "item,worker,start_s,end_s,outcome,exit_code,failure_reason\n"
                                          "a,w1,0,1,failed,3,exit\na,w1,1,2,failed,3,exit\n");
  ASSERT_EQ(millrace("import --store " + store() + " --format csv " + dir_.file("all-failed.csv")).exit_code, 0);
  shown = millrace("show --store " + store() + " all-failed");
  EXPECT_NE(shown.out.find("  failures:       2 attempts: exit 3 x 2; last: a attempt 2, exit 3\n"), std::string::npos)
      << shown.out;
  // Without failures there is no such line.
  ASSERT_EQ(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv).exit_code, 0);
  EXPECT_EQ(millrace("show --store " + store() + " 3").out.find("failures:"), std::string::npos);
}

TEST_F(Cli, AMissingStoreOrOptionIsOneErrorLine) {
  expect_one_line_error(millrace("runs --store " + dir_.file("missing.db")), "no such trace store");
  expect_one_line_error(millrace("import --format csv x.csv"), "--store is required");
}

TEST_F(Cli, FitsTheBundledRecordingAndPartitionsWithTheModel) {
  ASSERT_EQ(millrace("import --store " + store() + " --format stellar-csv " + kStellarCsv + " --name pcv2").exit_code, 0);
  const std::string model = dir_.file("model.json");
  auto fit = millrace("fit --store " + store() + " --runs pcv2 --bins 16 -o " + model);
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("chosen: separate"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("NOT identifiable"), std::string::npos) << fit.out;
  auto uniform = millrace("partition --span 0:54326463 --partitioner uniform --range-length 16000 --overlap 320 "
                          "--align 64 --format end-count");
  ASSERT_EQ(uniform.exit_code, 0) << uniform.err;
  EXPECT_EQ(uniform.out.substr(0, 44), "# overlap 320\n54326463/16320\n54310463/16320\n");
  auto optimal = millrace("partition --span 0:54326463 --partitioner optimal --workers 192 --align 64 --model " + model +
                          " --format json");
  ASSERT_EQ(optimal.exit_code, 0) << optimal.err;
  EXPECT_NE(optimal.out.find("\"partitioner\": \"optimal\""), std::string::npos);
}

// An autoscaled pod trace whose pods 1-3 fitted nowhere and waited for nodes that joined the run:
// imported with its node arrivals, exported back unchanged, and fitted (node provisioning from
// the orders told by the unschedulable pods to the nodes' ready times: 60 s, 90 s and 120 s).
TEST_F(Cli, NodeArrivalsImportWithTheRunExportBackAndGiveFitTheProvisioningDelay) {
  write_file(dir_.file("pods.csv"),
             "item,start_s,end_s,submitted_s,unschedulable_s,scheduled_s,node\n"
             "p0,2,50,0,,1,n0\n"
             "p1,72,100,10,11,71,n1\n"
             "p2,113,150,20,21,112,n2\n"
             "p3,153,190,30,31,152,n3\n");
  write_file(dir_.file("nodes.csv"), "node,pool,created_s,ready_s\nn1,spot,15,71\nn2,spot,25,111\nn3,,35,151\n");
  auto imported = millrace("import --store " + store() + " --format csv " + dir_.file("pods.csv") + " --name scaled --nodes " +
                           dir_.file("nodes.csv"));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("4 items, 4 attempts, 3 node arrivals into"), std::string::npos) << imported.out;

  auto exported = millrace("export --store " + store() + " scaled -o " + dir_.file("out.csv") + " --nodes " +
                           dir_.file("out-nodes.csv"));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(read_bytes(dir_.file("out-nodes.csv")),
            "node,pool,created_s,ready_s,departed_s,capacity_type,present_at_start\n"
            "n1,spot,15.0,71.0,,,0\nn2,spot,25.0,111.0,,,0\nn3,,35.0,151.0,,,0\n");
  EXPECT_NE(read_bytes(dir_.file("out.csv")).find("p1,range,,,,0,0.0,,1,,72.0,100.0,28.0,succeeded,0,,,10.0,11.0,71.0,n1"),
            std::string::npos)
      << read_bytes(dir_.file("out.csv"));
  auto again = millrace("import --store " + store() + " --format csv " + dir_.file("out.csv") + " --name again --nodes " +
                        dir_.file("out-nodes.csv"));
  ASSERT_EQ(again.exit_code, 0) << again.err;

  auto fit = millrace("fit --store " + store() + " --runs again -o " + dir_.file("model.json"));
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("node provisioning   3 observations, p50 1.5 min"), std::string::npos) << fit.out;

  auto refused = millrace("import --store " + store() + " --format csv " + dir_.file("pods.csv") + " --name bad --nodes " +
                          dir_.file("missing.csv"));
  expect_one_line_error(refused, "missing.csv");
}

TEST_F(Cli, PartitionRejectsUnknownNamesAndMalformedModelsInOneLine) {
  expect_one_line_error(millrace("partition --span 0:100 --partitioner fastest --range-count 2"),
                        "--partitioner: unknown partitioner 'fastest' (known: uniform, logarithmic, cost-balanced, optimal)");
  const std::string bad = dir_.file("bad.json");
  write_file(bad, "{\"format\":\"millrace-cost-model\",\"version\":1}");
  expect_one_line_error(millrace("partition --span 0:100 --partitioner optimal --range-count 2 --model " + bad),
                        bad + ": model: missing key 'bins'");
}

TEST_F(Cli, PartitionRefusesASpanBeyond64BitUnitNumbersInOneLine) {
  expect_one_line_error(millrace("partition --span=-9223372036854775808:9223372036854775807 --partitioner uniform --range-count 2"),
                        "--span -9223372036854775808:9223372036854775807: unit numbers are limited to +-2305843009213693952 (2^61)");
  expect_one_line_error(millrace("partition --span=0:9223372036854775807 --partitioner uniform --range-count 2"),
                        "--span 0:9223372036854775807: unit numbers are limited to +-2305843009213693952 (2^61)");
}

}  // namespace
}  // namespace millrace::cli
