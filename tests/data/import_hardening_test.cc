// The importers' shared text layer and checked numbers (issue 21 items 2 and 6) and the staged
// import (issue 20 item 3): a byte order mark and CRLF are accepted by every format; a Latin-1
// byte, a JSON number overflow, a duplicated row, a truncated log and every value beyond its
// range are refused with file:line and the field, quoting input only as a bounded excerpt; a
// refused import leaves the store (staging tables included) as it was; a reader on its own
// connection reads the store while an import is staged, and sees the run only once published.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>

#include <gtest/gtest.h>

#include "data/error.h"
#include "data/importers/importers.h"
#include "data/importers/staged_import.h"
#include "data/trace_store.h"
#include "tests/data/import_samples.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::TempDir;
using testing::write_file;

const std::string kBom = "\xEF\xBB\xBF";

std::vector<std::int64_t> all_rows(const TraceStore& store) {
  auto counts = testing::row_counts(store);
  for (const char* t : {"staged_imports", "staged_attempt_sources"}) counts.push_back(store.count_rows(t));
  return counts;
}

using testing::ImportSample;
using testing::text_samples;
using testing::kLogLine;

std::string crlf(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

class EveryFormatText : public ::testing::TestWithParam<ImportSample> {};

TEST_P(EveryFormatText, AByteOrderMarkAndCrlfLineEndsImportTheSameRun) {
  const ImportSample& s = GetParam();
  TempDir dir;
  auto reference = importers::parse_input(s.format, (write_file(dir.file(s.file), s.content), dir.file(s.file)));
  for (const std::string& variant : {kBom + s.content, crlf(s.content), kBom + crlf(s.content)}) {
    write_file(dir.file(s.file), variant);
    auto parsed = importers::parse_input(s.format, dir.file(s.file));
    EXPECT_EQ(parsed.trace->items, reference.trace->items) << s.format;
    EXPECT_EQ(parsed.trace->attempts, reference.trace->attempts) << s.format;
    EXPECT_EQ(parsed.trace->run, reference.trace->run) << s.format;
  }
}

INSTANTIATE_TEST_SUITE_P(Importers, EveryFormatText, ::testing::ValuesIn(text_samples()),
                         [](const auto& info) {
                           std::string name;
                           for (char c : info.param.format) name += c == '-' ? '_' : c;
                           return name;
                         });

TEST(TextInput, ABomBeforeTheEthereumHeaderIsSkipped) {
  TempDir dir;
  write_file(dir.file("export-BlockCountRewards.csv"),
             kBom + "\"Date(UTC)\",\"UnixTimeStamp\",\"Value\"\r\n\"7/30/2015\",\"1438214400\",\"10\"\r\n");
  write_file(dir.file("export-BlockSize.csv"), kBom + "\"Date(UTC)\",\"UnixTimeStamp\",\"Value\"\n\"7/30/2015\",\"1438214400\",\"644\"\n");
  auto parsed = importers::parse_input("ethereum", dir.file("export-BlockSize.csv"));
  ASSERT_EQ(parsed.profile->bins.size(), 1u);
  EXPECT_EQ(parsed.profile->bins[0].range, (Range{0, 10}));
}

// A refused import: Error::input() is `where` (after the temp dir), the problem holds every one
// of `parts`, and the store, staging tables included, is unchanged.
struct Refusal {
  std::string label;
  std::string format;
  std::string file;
  std::string content;
  std::string where;
  std::vector<std::string> parts;

  friend void PrintTo(const Refusal& r, std::ostream* os) { *os << r.label; }
};

const std::string kCsvHead = "item,attempt,worker,duration_s,exit_code\n";

std::vector<Refusal> refusals() {
  const std::string swf_job = "1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
  return {
      {"SwfLatin1Header", "swf", "t.swf", "; Version: 2.2\n; Computer: Caf\xE9 cluster\n" + swf_job, "t.swf:2",
       {"not UTF-8", "byte 0xE9", "column 16"}},
      {"CsvLatin1Field", "csv", "t.csv", kCsvHead + "a,1,w\xE9,1,0\n", "t.csv:2", {"not UTF-8", "0xE9"}},
      {"JsonNumberOverflow", "json", "t.json", "[{\"item\": \"a\",\n \"duration_s\": 1e400}]\n", "t.json:2",
       {"number out of range", "1e400"}},
      {"JsonSyntax", "json", "t.json", "[{\"item\": \"a\"}\n {\"item\": \"b\"}]\n", "t.json:2", {"malformed JSON", "column"}},
      {"StatusNumberOverflow", "stellar-status", "st.json", "{\"num_remain\":\n 1e999}", "st.json:2",
       {"number out of range"}},
      {"CsvDuplicateRow", "csv", "t.csv", kCsvHead + "a,1,w,1,0\nb,1,w,1,0\na,1,w,1,0\n", "t.csv:4",
       {"duplicate row", "attempt 1 of item 'a'", "t.csv:2"}},
      {"MetricsRangeBelowInt64", "stellar-metrics", "m.txt", "-9223372036854775808/16320|3|9.2|44s\n", "m.txt:1",
       {"range END/COUNT", "-9223372036854775808/16320", "out of range"}},
      {"MetricsEndBeyondInt64", "stellar-metrics", "m.txt", "9223372036854775808/16320|3|9.2|44s\n", "m.txt:1",
       {"range END", "out of range"}},
      {"LogDurationBeyondRange", "stellar-log", "s.log",
       "[x] q '/metrics', got response: {\"metrics\": [\"100/10|1|5ms|1e300s\"]}\n[x] Finished mission: X\n",
       "s.log:1: entry 1", {"total_s (duration)", "'1e300'", "out of range"}},
      {"CsvDurationBeyondRange", "csv", "t.csv", kCsvHead + "a,1,w,1e300,0\n", "t.csv:2",
       {"duration_s", "'1e300'", "out of range"}},
      {"CsvAttemptBeyondInt", "csv", "t.csv", kCsvHead + "a,4294967297,w,1,0\n", "t.csv:2",
       {"attempt", "'4294967297'", "out of range"}},
      {"CsvAttemptZero", "csv", "t.csv", kCsvHead + "a,0,w,1,0\n", "t.csv:2", {"attempt", "'0'", "count from 1"}},
      {"CsvExitCodeBeyondInt", "csv", "t.csv", kCsvHead + "a,1,w,1,99999999999\n", "t.csv:2",
       {"exit_code", "'99999999999'", "out of range"}},
      {"CsvRangeEndBeyondInt64", "csv", "t.csv", "first,count,duration_s\n9223372036854775000,1000,1\n", "t.csv:2",
       {"range", "first + count does not fit"}},
      {"SwfSubmitBeyondRange", "swf", "t.swf", "1 1e300 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf:1",
       {"submit", "out of range"}},
      {"SwfJobNumberNotWhole", "swf", "t.swf", "1.5 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf:1",
       {"job", "not a whole number"}},
      {"SwfStartPlusRunBeyondRange", "swf", "t.swf",
       "1 9007199254 -1 9007199254 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf:1",
       {"submit + wait + run_time", "out of range"}},
      {"TruncatedLogAfterMetrics", "stellar-log", "s.log",
       "[x] start\n" + kLogLine + "[12:06:41 INF] Cleaning up res", "s.log",
       {"truncated log", "Finished mission", "the last complete line is", "s.log:2 '[12:06:41 INF] job monitor", "nothing was imported"}},
      {"TruncatedLogCutInMetrics", "stellar-log", "s.log", "[x] start\n" + kLogLine.substr(0, 120), "s.log:2",
       {"truncated file"}},
  };
}

class RefusedImport : public ::testing::TestWithParam<Refusal> {};

TEST_P(RefusedImport, NamesFileLineAndFieldAndLeavesTheStoreUnchanged) {
  const Refusal& r = GetParam();
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  write_file(dir.file("good.csv"), "item,worker,duration_s\na,w,1\n");
  importers::import_file(store, "csv", dir.file("good.csv"));
  write_file(dir.file(r.file), r.content);
  const auto before = all_rows(store);
  for (bool streamed : {true, false}) {
    try {
      if (streamed) {
        importers::import_file(store, r.format, dir.file(r.file));
      } else {
        importers::parse_input(r.format, dir.file(r.file));
      }
      ADD_FAILURE() << "expected an Error";
    } catch (const Error& e) {
      EXPECT_EQ(e.input(), dir.file(r.where)) << e.what();
      for (const auto& part : r.parts) EXPECT_NE(e.problem().find(part), std::string::npos) << part << " in " << e.what();
    }
  }
  EXPECT_EQ(all_rows(store), before);
}

INSTANTIATE_TEST_SUITE_P(Importers, RefusedImport, ::testing::ValuesIn(refusals()),
                         [](const auto& info) { return info.param.label; });

TEST(TextInput, ATenMegabyteBadFieldIsQuotedAsABoundedExcerpt) {
  TempDir dir;
  const std::string huge(10'000'000, 'x');
  write_file(dir.file("t.csv"), "item,worker,duration_s\na,w," + huge + "\n");
  try {
    importers::parse_input("csv", dir.file("t.csv"));
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), dir.file("t.csv:2"));
    EXPECT_LT(e.problem().size(), 200u) << e.problem().size();
    EXPECT_NE(e.problem().find(std::string(80, 'x') + "\u2026' (10000000 bytes)"), std::string::npos);
  }
}

TEST(TextInput, AnInvalidUtf8SequenceIsFoundWhereverItIs) {
  TempDir dir;
  // Overlong '/', a lone continuation byte, a surrogate half and a truncated 3-byte sequence.
  for (const std::string& bad : {std::string("\xC0\xAF"), std::string("\x80"), std::string("\xED\xA0\x80"),
                                 std::string("\xE2\x82")}) {
    write_file(dir.file("m.txt"), "1/1|w|1|1s\n2/1|w" + bad + "|1|1s\n");
    try {
      importers::parse_input("stellar-metrics", dir.file("m.txt"));
      ADD_FAILURE() << "expected an Error";
    } catch (const Error& e) {
      EXPECT_EQ(e.input(), dir.file("m.txt:2"));
      EXPECT_NE(e.problem().find("column 6"), std::string::npos) << e.problem();
    }
  }
  write_file(dir.file("m.txt"), "1/1|w\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80|1|1s\n");  // é € 😀 are fine
  EXPECT_EQ(importers::parse_input("stellar-metrics", dir.file("m.txt")).trace->attempts.at(0).worker,
            "w\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

// More rows than one batch, attempts without start times (laid back to back in the store),
// and a run read back equal to the in-memory parse.
std::string big_csv(int rows) {
  std::string text = "item,worker,duration_s\n";
  for (int i = 0; i < rows; ++i) {
    text += "r" + std::to_string(i % (rows / 2)) + ",w" + std::to_string(i % 7) + "," + std::to_string(1 + i % 13) + "\n";
  }
  return text;
}

TEST(StagedImport, AStreamedImportOfSeveralBatchesEqualsTheInMemoryParse) {
  TempDir dir;
  const int rows = static_cast<int>(importers::kBatchRows) * 2 + 123;
  write_file(dir.file("t.csv"), big_csv(rows));
  auto store = TraceStore::open(dir.file("s.db"));
  auto result = importers::import_file(store, "csv", dir.file("t.csv"));
  auto parsed = importers::parse_input("csv", dir.file("t.csv")).trace;
  EXPECT_EQ(result.items, parsed->items.size());
  EXPECT_EQ(result.attempts, static_cast<std::size_t>(rows));
  EXPECT_EQ(store.items(result.run_id), parsed->items);
  auto by_key = [](std::vector<Attempt> a) {
    std::sort(a.begin(), a.end(), [](const Attempt& x, const Attempt& y) {
      return std::tie(x.item_id, x.number) < std::tie(y.item_id, y.number);
    });
    return a;
  };
  EXPECT_EQ(by_key(store.attempts(result.run_id)), by_key(parsed->attempts));
  data::Run run = store.run(result.run_id);
  EXPECT_EQ(run.started, parsed->run.started);
  EXPECT_EQ(run.ended, parsed->run.ended);
  for (const char* t : {"staged_imports", "staged_attempt_sources"}) EXPECT_EQ(store.count_rows(t), 0) << t;
}

TEST(StagedImport, AnotherConnectionReadsAndWritesWhileAnImportIsStagedAndSeesTheRunOnlyWhenPublished) {
  TempDir dir;
  auto importer_store = TraceStore::open(dir.file("s.db"));
  auto other = TraceStore::open(dir.file("s.db"));  // its own SQLite connection
  sqlite3_busy_timeout(other.handle(), 0);         // would fail at once if the import held the lock
  importers::StagedImport staged(importer_store);
  for (std::size_t i = 0; i < importers::kBatchRows + 10; ++i) {  // one batch written, one pending
    WorkItem item;
    item.id = "i" + std::to_string(i);
    staged.add_item(item);
    Attempt a;
    a.item_id = item.id;
    a.end = 5;
    staged.add_attempt(a, "t.csv:" + std::to_string(i + 2));
  }
  EXPECT_EQ(other.count_rows("items"), static_cast<std::int64_t>(importers::kBatchRows));  // two batches, 10 pending
  EXPECT_TRUE(other.runs().empty());
  WorkItem item;
  item.id = "live";
  Attempt a;
  a.item_id = "live";
  const std::int64_t live = other.add_run(data::Run{}, {item}, {a});  // a live run's write goes through
  data::Run imported;
  imported.name = "imported";
  const std::int64_t run_id = staged.publish(imported);
  EXPECT_NE(run_id, live);
  EXPECT_EQ(other.runs().size(), 2u);
  EXPECT_EQ(other.count_rows("attempts", run_id), static_cast<std::int64_t>(importers::kBatchRows + 10));
  EXPECT_EQ(other.run(run_id).name, "imported");
}

TEST(StagedImport, RowsLeftByAKilledImportAreRemovedByTheNextOne) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  // What a killed import leaves: a registration whose process is gone, its hidden run and rows.
  const std::int64_t hidden = store.add_hidden_run();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string sql = "INSERT INTO items (run_id, position, id, type, payload, priority, submit_at_us, "
                          "predicted_us) VALUES (" + std::to_string(hidden) + ", 0, 'x', 'range', '', 0, 0, 0); "
                          "INSERT INTO staged_imports (run_id, host, pid, started_us) VALUES (" +
                          std::to_string(hidden) + ", '" + host + "', 2147483646, 0)";
  ASSERT_EQ(sqlite3_exec(store.handle(), sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_TRUE(store.runs().empty());
  write_file(dir.file("t.csv"), "item,worker,duration_s\na,w,1\n");
  importers::import_file(store, "csv", dir.file("t.csv"));
  EXPECT_EQ(store.count_rows("staged_imports"), 0);
  EXPECT_EQ(store.count_rows("items"), 1);  // the new import's only
  EXPECT_EQ(store.count_rows("runs"), 1);
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST(TraceStoreReading, AStoredRangeOrIntFieldBeyondItsTypeIsACorruptRowNotData) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  write_file(dir.file("t.csv"), "item,first,count,worker,duration_s\na,1,5,w,1\n");
  const auto id = importers::import_file(store, "csv", dir.file("t.csv")).run_id;
  ASSERT_EQ(sqlite3_exec(store.handle(), "UPDATE items SET range_first = 9223372036854775807", nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_THROW(
      try { store.items(id); } catch (const Error& e) {
        EXPECT_NE(e.problem().find("invalid stored range"), std::string::npos) << e.what();
        throw;
      },
      Error);
  ASSERT_EQ(sqlite3_exec(store.handle(), "UPDATE attempts SET exit_code = 99999999999", nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_THROW(
      try { store.attempts(id); } catch (const Error& e) {
        EXPECT_NE(e.problem().find("exit code 99999999999"), std::string::npos) << e.what();
        throw;
      },
      Error);
}

}  // namespace
}  // namespace millrace::data
