// Every importer reports a malformed input with the file and line (or entry) and the reason,
// and leaves the store exactly as it was (row counts before and after are equal).
#include <zlib.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "data/error.h"
#include "data/importers/importers.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::row_counts;
using testing::TempDir;
using testing::write_file;

struct Case {
  std::string label;
  std::string format;
  std::string file;     // file name the content is written to
  std::string content;
  std::string where;    // expected Error::input() suffix (after the temp dir)
  std::string reason;   // expected substring of the message

  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }
};

const std::string kEthBlocks =
    "\"Date(UTC)\",\"UnixTimeStamp\",\"Value\"\n\"7/30/2015\",\"1438214400\",\"6912\"\n"
    "\"7/31/2015\",\"1438300800\",\"6863\"\n";
const std::string kEthHeader = "\"Date(UTC)\",\"UnixTimeStamp\",\"Value\"\n";
const std::string kCsvHeader = "item,worker,duration_s\n";
const std::string kStellarHeader = "end_ledger,ledger_count,first_ledger,worker_id,tx_apply_ms,total_s\n";
const std::string kSwfLine = "1 0 -1 10 128 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n";
std::string log_line(const std::string& entries) {
  return "[12:06:41 INF] job monitor query 'http://x/metrics', got response: {\"metrics\": [" + entries + "]}\n";
}

std::vector<Case> cases() {
  return {
      {"CsvBadFieldCount", "csv", "t.csv", kCsvHeader + "a,w,1\nb,w\n", "t.csv:3", "bad field count"},
      {"CsvNegativeDuration", "csv", "t.csv", kCsvHeader + "a,w,-1\n", "t.csv:2", "negative duration_s"},
      {"CsvNonNumeric", "csv", "t.csv", kCsvHeader + "a,w,abc\n", "t.csv:2", "non-numeric duration_s"},
      {"CsvTruncated", "csv", "t.csv", kCsvHeader + "a,w,1\nb,w", "t.csv:3", "truncated file"},
      {"CsvEmpty", "csv", "t.csv", "", "t.csv", "empty file"},
      {"CsvCountZero", "csv", "t.csv", "end_count,worker,duration_s\n100/0,w,1\n", "t.csv:2", "COUNT > 0"},
      {"CsvEndBelowInt64", "csv", "t.csv", "end_count,worker,duration_s\n-9223372036854775808/16320,w,1\n", "t.csv:2",
       "range END/COUNT -9223372036854775808/16320 out of range"},
      {"CsvUnknownColumn", "csv", "t.csv", "item,wroker,duration_s\na,w,1\n", "t.csv:2", "unknown column 'wroker'"},
      {"JsonMissingField", "json", "t.json", R"([{"item":"a","worker":"w"}])", "t.json: row 1", "missing duration_s"},
      {"JsonNegativeDuration", "json", "t.json", R"([{"item":"a","worker":"w","duration_s":1},
                                                   {"item":"b","worker":"w","duration_s":-2}])",
       "t.json: row 2", "negative duration_s"},
      {"JsonNonNumeric", "json", "t.json", R"([{"item":"a","duration_s":"abc"}])", "t.json: row 1", "non-numeric"},
      {"JsonTruncated", "json", "t.json", "[{\"item\":\"a\",\n\"worker\":", "t.json:2", "truncated file"},
      {"JsonEmpty", "json", "t.json", "\n", "t.json", "empty file"},
      {"JsonCountZero", "json", "t.json", R"({"rows":[{"first":1,"count":0,"duration_s":1}]})", "t.json: row 1",
       "COUNT > 0"},
      {"SwfBadFieldCount", "swf", "t.swf", "; Version: 2.2\n" + kSwfLine + "2 5 -1 10 128 -1 -1\n", "t.swf:3",
       "bad field count: 7 fields, expected 18"},
      {"SwfNegativeDuration", "swf", "t.swf", "2 5 -1 -7 128 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n", "t.swf:1",
       "negative run time"},
      {"SwfNonNumeric", "swf", "t.swf", kSwfLine + "2 5 -1 x7 128 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n", "t.swf:2",
       "non-numeric run_time"},
      {"SwfTruncated", "swf", "t.swf", kSwfLine + "2 5 -1 10 128 -1", "t.swf:2", "truncated file"},
      {"SwfEmpty", "swf", "t.swf", "", "t.swf", "empty file"},
      {"SwfOnlyHeader", "swf", "t.swf", "; Version: 2.2\n", "t.swf", "no jobs"},
      {"StellarLogBadFieldCount", "stellar-log", "s.log", log_line(R"("100/10|1|5ms|3s", "1/2|3|4ms")"), "s.log:1: entry 2",
       "bad field count"},
      {"StellarLogNegativeDuration", "stellar-log", "s.log", log_line(R"("100/10|1|5ms|-3s")"), "s.log:1: entry 1",
       "negative total_s"},
      {"StellarLogNonNumeric", "stellar-log", "s.log", log_line(R"("100/10|1|xms|3s")"), "s.log:1: entry 1",
       "non-numeric tx_apply_ms"},
      {"StellarLogMissingUnit", "stellar-log", "s.log", log_line(R"("100/10|1|5|3s")"), "s.log:1: entry 1",
       "lacks its 'ms' unit"},
      {"StellarLogTruncated", "stellar-log", "s.log",
       "[12:06:41 INF] query '/metrics', got response: {\"metrics\": [\"100/10|1|5ms|3s\", \"90/1", "s.log:1",
       "truncated file"},
      {"StellarLogEmpty", "stellar-log", "s.log", "", "s.log", "empty file"},
      {"StellarLogCountZero", "stellar-log", "s.log", log_line(R"("100/0|1|5ms|3s")"), "s.log:1: entry 1", "COUNT > 0"},
      {"StellarLogNoMetrics", "stellar-log", "s.log", "[12:06:41 INF] Cleaning up resources...\n", "s.log",
       "no job monitor /metrics line"},
      {"StellarCsvBadFieldCount", "stellar-csv", "s.csv", kStellarHeader + "100,10,91,1,5.0\n", "s.csv:2",
       "bad field count"},
      {"StellarCsvNegativeDuration", "stellar-csv", "s.csv", kStellarHeader + "100,10,91,1,5.0,-3\n", "s.csv:2",
       "negative total_s"},
      {"StellarCsvNonNumeric", "stellar-csv", "s.csv", kStellarHeader + "100,10,91,1,5.0,3\n1x0,10,91,1,5.0,3\n",
       "s.csv:3", "non-numeric end_ledger"},
      {"StellarCsvTruncated", "stellar-csv", "s.csv", kStellarHeader + "100,10,91,1,5.0,3\n200,10,1", "s.csv:3",
       "truncated file"},
      {"StellarCsvEmpty", "stellar-csv", "s.csv", "", "s.csv", "empty file"},
      {"StellarCsvHeaderOnly", "stellar-csv", "s.csv", kStellarHeader, "s.csv", "no data rows"},
      {"StellarCsvCountZero", "stellar-csv", "s.csv", kStellarHeader + "100,0,101,1,5.0,3\n", "s.csv:2", "COUNT > 0"},
      {"StellarCsvFirstLedgerMismatch", "stellar-csv", "s.csv", kStellarHeader + "100,10,90,1,5.0,3\n", "s.csv:2",
       "first_ledger"},
      {"EthereumBadFieldCount", "ethereum", "export-BlockSize.csv", kEthHeader + "\"7/30/2015\",\"1438214400\"\n",
       "export-BlockSize.csv:2", "bad field count"},
      {"EthereumNegativeValue", "ethereum", "export-BlockSize.csv",
       kEthHeader + "\"7/30/2015\",\"1438214400\",\"-644\"\n\"7/31/2015\",\"1438300800\",\"582\"\n",
       "export-BlockSize.csv:2", "negative Value"},
      {"EthereumNonNumeric", "ethereum", "export-BlockSize.csv",
       kEthHeader + "\"7/30/2015\",\"1438214400\",\"64x\"\n\"7/31/2015\",\"1438300800\",\"582\"\n",
       "export-BlockSize.csv:2", "non-numeric Value"},
      {"EthereumTruncated", "ethereum", "export-BlockSize.csv",
       kEthHeader + "\"7/30/2015\",\"1438214400\",\"644\"\n\"7/31/2015\",\"14383", "export-BlockSize.csv:3",
       "truncated file"},
      {"EthereumEmpty", "ethereum", "export-BlockSize.csv", "", "export-BlockSize.csv", "empty file"},
      {"EthereumDaysMisaligned", "ethereum", "export-BlockSize.csv",
       kEthHeader + "\"7/30/2015\",\"1438214400\",\"644\"\n\"8/1/2015\",\"1438387200\",\"582\"\n",
       "export-BlockSize.csv:3", "day does not match"},
  };
}

class MalformedImport : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedImport, IsReportedWithFileLineAndReasonAndLeavesTheStoreUnchanged) {
  const Case& c = GetParam();
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  write_file(dir.file("good.csv"), kCsvHeader + "a,w,1\n");
  importers::import_file(store, "csv", dir.file("good.csv"));
  if (c.format == "ethereum") write_file(dir.file("export-BlockCountRewards.csv"), kEthBlocks);
  write_file(dir.file(c.file), c.content);
  auto before = row_counts(store);
  try {
    importers::import_file(store, c.format, dir.file(c.file));
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), dir.file(c.where)) << e.what();
    EXPECT_NE(e.problem().find(c.reason), std::string::npos) << e.what();
  }
  EXPECT_EQ(row_counts(store), before);
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, MalformedImport, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.label; });

TEST(MalformedImport, TruncatedGzipIsReportedAndLeavesTheStoreUnchanged) {
  TempDir dir;
  std::string path = dir.file("t.swf.gz");
  {
    gzFile out = gzopen(path.c_str(), "wb");
    std::string text;
    for (int i = 1; i <= 2000; ++i) text += std::to_string(i) + " " + kSwfLine.substr(2);
    gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
    gzclose(out);
  }
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  auto store = TraceStore::open(dir.file("s.db"));
  auto before = row_counts(store);
  try {
    importers::import_file(store, "swf", path);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path);
    EXPECT_NE(e.problem().find("truncated"), std::string::npos) << e.what();
  }
  EXPECT_EQ(row_counts(store), before);
}

TEST(MalformedImport, UnknownFormatNamesTheFormat) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  try {
    importers::import_file(store, "xml", dir.file("x.xml"));
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "--format");
    EXPECT_EQ(e.problem(), "unknown import format 'xml' (known: csv, json, swf, ethereum, stellar-log, stellar-csv, "
                           "stellar-metrics, stellar-status, profile)");
  }
}

TEST(MalformedImport, MissingFileIsAnErrorNamingIt) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  EXPECT_THROW(importers::import_file(store, "csv", dir.file("missing.csv")), Error);
}

}  // namespace
}  // namespace millrace::data
