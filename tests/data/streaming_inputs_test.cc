// The streaming pieces of the one text/JSON input layer: a line split at a marker whose rest is
// read byte by byte (TextInput::next_line_until), JSON lists handed over element by element with
// their lines (parse_json_list), and stellar recordings ordered on disk (StellarRecording),
// checked against small references written here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "data/error.h"
#include "data/importers/importers.h"
#include "data/importers/json_input.h"
#include "data/importers/staged_import.h"
#include "data/importers/stellar_csv_importer.h"
#include "data/importers/stellar_log_importer.h"
#include "data/importers/text_input.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using importers::JsonExtent;
using importers::TextInput;
using testing::TempDir;
using testing::write_file;

std::string rest_of_line(TextInput& input) {
  std::string rest;
  for (int c; (c = input.next_line_byte()) >= 0;) rest += static_cast<char>(c);
  return rest;
}

TEST(TextInputSplitLine, AMarkerAcrossTheReadBufferSplitsTheLineAndItsRestIsReadByteByByte) {
  TempDir dir;
  // The read buffer is 64 KiB: the marker straddles its end, the rest spans several refills.
  const std::string head(65536 - 4, 'h');
  const std::string rest = "<<MARK>>" + std::string(200000, 'r') + "\r";
  write_file(dir.file("t.txt"), "first\n" + head + rest + "\nthird MARK\nfourth <<MARK>> skipped\nfifth");
  TextInput input(dir.file("t.txt"));
  ASSERT_TRUE(input.next_line_until("<<MARK>>"));
  EXPECT_EQ(input.line(), "first");
  EXPECT_FALSE(input.rest_open());
  ASSERT_TRUE(input.next_line_until("<<MARK>>"));
  EXPECT_EQ(input.line_number(), 2u);
  EXPECT_EQ(input.line().size(), head.size());
  ASSERT_TRUE(input.rest_open());
  EXPECT_EQ(rest_of_line(input), rest);  // the rest keeps its bytes, '\r' included
  EXPECT_EQ(input.column(), head.size() + rest.size());
  EXPECT_FALSE(input.cut_off());
  ASSERT_TRUE(input.next_line_until("<<MARK>>"));
  EXPECT_EQ(input.line(), "third MARK");
  ASSERT_TRUE(input.next_line_until("<<MARK>>"));
  EXPECT_EQ(input.line(), "fourth ");
  EXPECT_TRUE(input.rest_open());
  ASSERT_TRUE(input.next_line());  // the unread rest is skipped
  EXPECT_EQ(input.line(), "fifth");
  EXPECT_EQ(input.line_number(), 5u);
  EXPECT_TRUE(input.cut_off());
  EXPECT_FALSE(input.next_line());
}

TEST(TextInputSplitLine, ARestCutOffByTheEndOfTheFileSaysSo) {
  TempDir dir;
  write_file(dir.file("t.txt"), "a {\"k\": [1, 2");
  TextInput input(dir.file("t.txt"));
  ASSERT_TRUE(input.next_line_until("{"));
  EXPECT_EQ(rest_of_line(input), "{\"k\": [1, 2");
  EXPECT_TRUE(input.cut_off());
  EXPECT_FALSE(input.next_line_until("{"));
}

TEST(JsonList, EachElementComesWithTheLineItStartsOnAndTheRestOfTheDocumentStays) {
  TempDir dir;
  write_file(dir.file("l.json"),
             "{\"other\": [[1], 2],\n"
             " \"rows\": [\n"
             "  {\"a\": [1,\n"
             "    2]},\n"
             "  [3], 4\n"
             "  ,\"five\"],\n"
             " \"units\": \"x\"}\n");
  TextInput input(dir.file("l.json"));
  std::vector<std::pair<std::string, std::string>> got;
  const nlohmann::json doc = importers::parse_json_list(input, "rows", [&](const nlohmann::json& e, const std::string& where) {
    got.emplace_back(e.dump(), where.substr(where.rfind(':') + 1));
  });
  const std::vector<std::pair<std::string, std::string>> expected = {
      {R"({"a":[1,2]})", "3"}, {"[3]", "5"}, {"4", "5"}, {R"("five")", "6"}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(doc, nlohmann::json::parse(R"({"other": [[1], 2], "rows": [], "units": "x"})"));
}

TEST(JsonList, AnErrorInsideAnElementNamesItsFileAndLine) {
  TempDir dir;
  write_file(dir.file("l.json"), "[\n{\"a\": 1},\n{\"a\": 2}\n]\n");
  TextInput input(dir.file("l.json"));
  try {
    importers::parse_json_list(input, "rows", [](const nlohmann::json& e, const std::string& where) {
      if (e["a"] == 2) throw Error(where, "bad a");
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), dir.file("l.json") + ":3");
  }
}

TEST(JsonList, AListQuotedAtTheEndOfALineEndsWithTheLine) {
  TempDir dir;
  write_file(dir.file("s.log"), "x got {\"m\": [\"a\", \"b\"]}  \nnext\n");
  TextInput input(dir.file("s.log"));
  ASSERT_TRUE(input.next_line_until("{"));
  std::vector<std::string> got;
  importers::parse_json_list(
      input, "m", [&](const nlohmann::json& e, const std::string&) { got.push_back(e.get<std::string>()); },
      JsonExtent::kRestOfLine);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(input.next_line());
  EXPECT_EQ(input.line(), "next");
}

// A recording's entries, in the order a Redis set might list them.
struct Entry {
  std::int64_t end;
  std::string worker;
  std::int64_t apply_ms;
  std::int64_t total_s;
};

// A small portable generator (no std distributions: their draws differ between libraries).
struct Lcg {
  std::uint64_t state;
  std::uint64_t next(std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  }
};

std::vector<Entry> shuffled_entries(int ranges) {
  Lcg lcg{7};
  std::vector<Entry> entries;
  for (int r = 0; r < ranges; ++r) {
    const std::int64_t end = 6463 + 16000 * static_cast<std::int64_t>(r);
    const int tries = r % 9 == 0 ? 3 : 1;
    for (int t = 0; t < tries; ++t) {
      // Numeric workers of several widths, and named ones that sort as text.
      std::string worker = r % 13 == 0 ? "w" + std::to_string(lcg.next(20)) : std::to_string(lcg.next(150));
      entries.push_back({end, worker, 100 + static_cast<std::int64_t>(lcg.next(90000)), 1 + static_cast<std::int64_t>(t)});
    }
  }
  for (std::size_t i = entries.size(); i > 1; --i) std::swap(entries[i - 1], entries[lcg.next(i)]);
  return entries;
}

std::string log_of(const std::vector<Entry>& entries) {
  std::string text = "[12:06:41 INF] start\n[12:06:41 INF] query '/metrics', got response: {\"metrics\": [";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    text += (i ? ", \"" : "\"") + std::to_string(e.end) + "/16320|" + e.worker + "|" + std::to_string(e.apply_ms) +
            "ms|" + std::to_string(e.total_s) + "s\"";
  }
  return text + "]}\n[12:06:41 INF] Finished mission: X\n";
}

// The reference: tip first, a range's tries by worker (numbers by value), then duration; each
// worker's attempts back to back from 0.
std::vector<Attempt> reference_attempts(std::vector<Entry> entries) {
  auto numeric = [](const std::string& s) { return s.find_first_not_of("0123456789") == std::string::npos; };
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    if (a.end != b.end) return a.end > b.end;
    if (a.worker != b.worker) {
      if (numeric(a.worker) && numeric(b.worker)) return std::stoll(a.worker) < std::stoll(b.worker);
      return a.worker < b.worker;
    }
    return std::tie(a.total_s, a.apply_ms) < std::tie(b.total_s, b.apply_ms);
  });
  std::vector<Attempt> out;
  std::map<std::string, Micros> free_at;
  for (const Entry& e : entries) {
    Attempt a;
    a.item_id = std::to_string(e.end) + "/16320";
    a.number = !out.empty() && out.back().item_id == a.item_id ? out.back().number + 1 : 1;
    a.worker = e.worker;
    a.start = free_at[e.worker];
    a.end = a.start + e.total_s * kMicrosPerSecond;
    a.work_time = e.apply_ms * kMicrosPerMilli;
    free_at[e.worker] = a.end;
    out.push_back(a);
  }
  return out;
}

TEST(StellarRecording, ALogListedInNoOrderImportsTipFirstWithTheReferenceOrderInMemoryAndInTheStore) {
  TempDir dir;
  const int ranges = static_cast<int>(importers::kBatchRows) + 500;  // more than one batch to the store
  const std::vector<Entry> entries = shuffled_entries(ranges);
  write_file(dir.file("s.log"), log_of(entries));
  const std::vector<Attempt> expected = reference_attempts(entries);
  const importers::Trace parsed = importers::read_stellar_log(dir.file("s.log"));
  ASSERT_EQ(parsed.attempts.size(), entries.size());
  EXPECT_TRUE(parsed.attempts == expected);  // (not printed: thousands of attempts)
  ASSERT_EQ(parsed.items.size(), static_cast<std::size_t>(ranges));
  EXPECT_EQ(parsed.items.front().id, std::to_string(6463 + 16000 * static_cast<std::int64_t>(ranges - 1)) + "/16320");
  auto store = TraceStore::open(dir.file("s.db"));
  const auto result = importers::import_file(store, "stellar-log", dir.file("s.log"));
  EXPECT_TRUE(store.items(result.run_id) == parsed.items);
  auto by_key = [](std::vector<Attempt> a) {  // the store lists attempts by item id and number
    std::sort(a.begin(), a.end(), [](const Attempt& x, const Attempt& y) {
      return std::tie(x.item_id, x.number) < std::tie(y.item_id, y.number);
    });
    return a;
  };
  EXPECT_TRUE(by_key(store.attempts(result.run_id)) == by_key(expected));
  EXPECT_EQ(store.run(result.run_id).ended, parsed.run.ended);
}

std::string error_of(const std::string& path) {
  try {
    importers::read_stellar_csv(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(StellarRecording, OfSeveralUnexplainedEntriesTheFirstInTheFileIsReportedWithTheOneItRepeats) {
  TempDir dir;
  const std::string header = "end_ledger,ledger_count,first_ledger,worker_id,tx_apply_ms,total_s\n";
  // Line 4 clashes with line 3 (one END, two COUNTs); line 5 repeats line 2.
  write_file(dir.file("clash.csv"), header + "100,10,91,1,5,3\n200,10,191,1,5,3\n200,20,181,2,5,3\n100,10,91,1,5,3\n");
  EXPECT_EQ(error_of(dir.file("clash.csv")), dir.file("clash.csv") + ":4: range 200/20 disagrees with 200/10 at " +
                                                 dir.file("clash.csv") + ":3: one END, two COUNTs");
  // Line 4 repeats line 2 (listed after a try of another worker); line 5 clashes with line 3.
  write_file(dir.file("repeat.csv"), header + "100,10,91,9,5,3\n200,10,191,1,5,3\n100,10,91,9,5,3\n200,20,181,2,5,3\n");
  EXPECT_EQ(error_of(dir.file("repeat.csv")), dir.file("repeat.csv") + ":4: repeats the entry at " +
                                                  dir.file("repeat.csv") + ":2 (each try is recorded once)");
}

}  // namespace
}  // namespace millrace::data
