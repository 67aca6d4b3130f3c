// Importers for what a stellar parallel catch-up's Redis queue and job monitor record: the
// workers' metrics set dumped with `redis-cli SMEMBERS` and a saved /status JSON.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/importers.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::row_counts;
using testing::TempDir;
using testing::write_file;

TEST(StellarMetricsImport, SmembersLinesBecomeATipFirstRunWithTheOverlapRecorded) {
  TempDir dir;
  const std::string path = dir.file("metrics.txt");
  write_file(path,
             "22463/16320|48|9.27333|44s\n"
             "54463/16320|88|N/A|42\n"
             "\n"
             "1) \"38463/16320|29|11.9441ms|46s\"\n");
  TraceStore store = TraceStore::open(dir.file("t.db"));
  const importers::ImportResult r = importers::import_file(store, "stellar-metrics", path, {.name = "m"});
  EXPECT_EQ(r.items, 3u);
  EXPECT_EQ(r.attempts, 3u);
  const std::vector<WorkItem> items = store.items(r.run_id);
  EXPECT_EQ(items[0].id, "54463/16320");
  EXPECT_EQ(items[0].range, (Range{54463 - 16320 + 1, 16320}));  // the replayed range, overlap included
  EXPECT_EQ(items[2].id, "22463/16320");
  const nlohmann::json parameters = nlohmann::json::parse(store.run(r.run_id).parameters);
  EXPECT_EQ(parameters["overlap"], 320);
  EXPECT_EQ(parameters["order"], "tip-first");
  for (const Attempt& a : store.attempts(r.run_id)) {
    if (a.item_id == "54463/16320") {
      EXPECT_EQ(a.duration(), 42 * kMicrosPerSecond);
      EXPECT_FALSE(a.work_time.has_value());
    }
    if (a.item_id == "38463/16320") {
      EXPECT_EQ(a.work_time, Micros{11944});
    }
  }
}

TEST(StellarMetricsImport, ARangeOnSeveralLinesIsOneItemWithAnAttemptPerLineInAnyDumpOrder) {
  TempDir dir;
  // 22463/16320 tried three times: worker 48 lost it and later finished it again, worker 7
  // finished it after the re-queue. A Redis set dumps its members in no particular order.
  const std::vector<std::string> lines = {"22463/16320|48|9.1|20s", "38463/16320|29|11.9|46s",
                                          "22463/16320|7|9.3|44s", "22463/16320|48|9.2|44s"};
  TraceStore store = TraceStore::open(dir.file("t.db"));
  std::vector<std::vector<Attempt>> imported;
  for (const bool reversed : {false, true}) {
    std::string text;
    for (std::size_t i = 0; i < lines.size(); ++i) text += lines[reversed ? lines.size() - 1 - i : i] + "\n";
    const std::string path = dir.file(reversed ? "reversed.txt" : "metrics.txt");
    write_file(path, text);
    const importers::ImportResult r = importers::import_file(store, "stellar-metrics", path, {.name = path});
    EXPECT_EQ(r.items, 2u);
    EXPECT_EQ(r.attempts, 4u);
    EXPECT_EQ(nlohmann::json::parse(store.run(r.run_id).parameters)["overlap"], 320);
    std::vector<Attempt> tries;
    for (const Attempt& a : store.attempts(r.run_id)) {
      if (a.item_id == "22463/16320") tries.push_back(a);
    }
    std::sort(tries.begin(), tries.end(), [](const Attempt& a, const Attempt& b) { return a.number < b.number; });
    imported.push_back(tries);
  }
  ASSERT_EQ(imported[0].size(), 3u);
  EXPECT_EQ(imported[0][0].worker, "7");  // by worker id, numerically: 7 before 48
  EXPECT_EQ(imported[0][1].worker, "48");
  EXPECT_EQ(imported[0][1].duration(), 20 * kMicrosPerSecond);  // then by duration
  EXPECT_EQ(imported[0][2].worker, "48");
  EXPECT_EQ(imported[0][2].duration(), 44 * kMicrosPerSecond);
  for (const Attempt& a : imported[0]) EXPECT_EQ(a.outcome, Outcome::kSucceeded);
  EXPECT_EQ(imported[1], imported[0]);
}

struct Malformed {
  std::string name;
  std::string line3;
  std::string reason;
};

class StellarMetricsMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(StellarMetricsMalformed, IsReportedWithItsLineNumberAndChangesNothing) {
  TempDir dir;
  const std::string path = dir.file("metrics.txt");
  write_file(path, "22463/16320|48|9.27333|44s\n38463/16320|29|11.9441|46s\n" + GetParam().line3 + "\n");
  TraceStore store = TraceStore::open(dir.file("t.db"));
  const std::string good = dir.file("good.txt");
  write_file(good, "22463/16320|48|9.27333|44s\n");
  importers::import_file(store, "stellar-metrics", good, {.name = "before"});
  const auto before = row_counts(store);
  try {
    importers::import_file(store, "stellar-metrics", path, {.name = "bad"});
    FAIL() << "no error for " << GetParam().name;
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path + ":3") << e.what();
    EXPECT_NE(std::string(e.what()).find(GetParam().reason), std::string::npos) << e.what();
  }
  EXPECT_EQ(row_counts(store), before);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, StellarMetricsMalformed,
    ::testing::Values(Malformed{"MissingField", "54463/16320|88|42s", "field count"},
                      Malformed{"NonNumericDuration", "54463/16320|88|1.5|fast", "fast"},
                      Malformed{"CountZero", "54463/0|88|1.5|42s", "0"},
                      Malformed{"CountDisagreesForTheSameEnd", "22463/16000|7|9.3|44s",
                                "metrics.txt:1: one END, two COUNTs"},
                      Malformed{"RepeatedEntry", "22463/16320|48|9.27333|44s", "metrics.txt:1 (each try is recorded once)"}),
    [](const auto& info) { return info.param.name; });

TEST(StellarStatusImport, FailedAndInProgressRangesBecomeAttemptsAndTheCountsParameters) {
  TempDir dir;
  const std::string path = dir.file("status.json");
  write_file(path, R"({"num_remain": 12, "num_succeeded": 3380,
    "jobs_failed": ["38463/16320|ssc-stellar-core-7", "38463/16320|ssc-stellar-core-9"],
    "jobs_in_progress": ["54463/16320", "22463/16320"],
    "workers": [{"worker_id": 7, "status": "running", "info": "catching up"}]})");
  TraceStore store = TraceStore::open(dir.file("t.db"));
  const importers::ImportResult r = importers::import_file(store, "stellar-status", path, {.name = "s"});
  EXPECT_EQ(r.items, 3u);
  EXPECT_EQ(r.attempts, 4u);
  EXPECT_EQ(store.items(r.run_id)[0].id, "54463/16320");
  int failed = 0, running = 0;
  for (const Attempt& a : store.attempts(r.run_id)) {
    failed += a.outcome == Outcome::kFailed;
    running += a.outcome == Outcome::kRunning;
    if (a.item_id == "38463/16320" && a.number == 2) {
      EXPECT_EQ(a.worker, "ssc-stellar-core-9");
    }
  }
  EXPECT_EQ(failed, 2);
  EXPECT_EQ(running, 2);
  const nlohmann::json parameters = nlohmann::json::parse(store.run(r.run_id).parameters);
  EXPECT_EQ(parameters["num_remain"], 12);
  EXPECT_EQ(parameters["num_succeeded"], 3380);
  EXPECT_EQ(parameters["workers"].size(), 1u);
}

TEST(StellarStatusImport, AMalformedEntryIsNamedAndChangesNothing) {
  TempDir dir;
  const std::string path = dir.file("status.json");
  write_file(path, R"({"num_remain": 1, "num_succeeded": 0, "jobs_failed": ["38463/16320"],
    "jobs_in_progress": [], "workers": []})");
  TraceStore store = TraceStore::open(dir.file("t.db"));
  const auto before = row_counts(store);
  try {
    importers::import_file(store, "stellar-status", path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path + ": jobs_failed entry 1");
  }
  EXPECT_EQ(row_counts(store), before);
}

}  // namespace
}  // namespace millrace::data
