// Importers for what a stellar parallel catch-up's Redis queue and job monitor record: the
// workers' metrics set dumped with `redis-cli SMEMBERS` and a saved /status JSON.
#include <gtest/gtest.h>

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

struct Malformed {
  std::string label;
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
    FAIL() << "no error for " << GetParam().label;
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path + ":3") << e.what();
    EXPECT_NE(std::string(e.what()).find(GetParam().reason), std::string::npos) << e.what();
  }
  EXPECT_EQ(row_counts(store), before);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, StellarMetricsMalformed,
    ::testing::Values(Malformed{"missing field", "54463/16320|88|42s", "field count"},
                      Malformed{"non-numeric duration", "54463/16320|88|1.5|fast", "fast"},
                      Malformed{"count zero", "54463/0|88|1.5|42s", "0"}),
    [](const auto& info) { return std::string(info.param.label == "missing field" ? "MissingField"
                                              : info.param.label == "count zero" ? "CountZero"
                                                                                 : "NonNumericDuration"); });

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
