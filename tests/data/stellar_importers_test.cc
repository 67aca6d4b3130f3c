#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/importers/stellar_csv_importer.h"
#include "data/importers/stellar_log_importer.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::TempDir;
using testing::write_file;

const char* kLog =
    "[12:06:41 INF] No job left and all workers are down.\n"
    "[12:06:41 INF] job monitor query 'http://monitor/metrics', got response: {\"metrics\": "
    "[\"38463/16320|7|11.9441ms|46s\", \"6463/16320|7|0.720432ms|19s\", \"54463/16320|8|1.5e+03ms|42s\"]}\n"
    "[12:06:41 INF] Finished mission: HistoryPubnetParallelCatchupV2\n";
const char* kCsv =
    "end_ledger,ledger_count,first_ledger,worker_id,tx_apply_ms,total_s\n"
    "6463,16320,-9856,7,0.720432,19\n"
    "38463,16320,22144,7,11.9441,46\n"
    "54463,16320,38144,8,1500.0,42\n";

TEST(StellarImport, LogEntriesBecomeTipFirstItemsWithBackToBackAttemptsPerWorker) {
  TempDir dir;
  write_file(dir.file("s.log"), kLog);
  auto trace = importers::read_stellar_log(dir.file("s.log"));
  EXPECT_EQ(trace.run.units, "ledgers");
  EXPECT_EQ(nlohmann::json::parse(trace.run.parameters)["workers"], 2);
  ASSERT_EQ(trace.items.size(), 3u);
  EXPECT_EQ(trace.items[0].id, "54463/16320");
  EXPECT_EQ(trace.items[1].id, "38463/16320");
  EXPECT_EQ(trace.items[2].range, (Range{-9856, 16320}));  // kept as recorded
  ASSERT_EQ(trace.attempts.size(), 3u);
  const Attempt& tip = trace.attempts[0];
  EXPECT_EQ(tip.worker, "8");
  EXPECT_EQ(tip.start, 0);
  EXPECT_EQ(tip.end, 42 * kMicrosPerSecond);
  EXPECT_EQ(tip.work_time, 1'500'000);
  // Worker 7 ran 38463 then 6463, back to back.
  EXPECT_EQ(trace.attempts[1].item_id, "38463/16320");
  EXPECT_EQ(trace.attempts[1].start, 0);
  EXPECT_EQ(trace.attempts[1].work_time, 11'944);
  EXPECT_EQ(trace.attempts[2].start, 46 * kMicrosPerSecond);
  EXPECT_EQ(trace.attempts[2].end, 65 * kMicrosPerSecond);
  EXPECT_EQ(trace.attempts[2].work_time, 720);
  EXPECT_EQ(trace.run.ended, 65 * kMicrosPerSecond);
}

TEST(StellarImport, TheParsedCsvGivesTheSameTraceAsTheRawLog) {
  TempDir dir;
  write_file(dir.file("s.log"), kLog);
  write_file(dir.file("s.csv"), kCsv);
  auto from_log = importers::read_stellar_log(dir.file("s.log"));
  auto from_csv = importers::read_stellar_csv(dir.file("s.csv"));
  EXPECT_EQ(from_csv.items, from_log.items);
  EXPECT_EQ(from_csv.attempts, from_log.attempts);
  EXPECT_EQ(from_csv.run, from_log.run);
}

}  // namespace
}  // namespace millrace::data
