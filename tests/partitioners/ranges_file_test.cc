// Ranges files in every format (END/COUNT, CSV with and without a header, JSON array and
// object), and every malformed case: each error must name the file and the offending line.
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/cost_model.h"
#include "data/error.h"
#include "partitioners/ranges_file.h"
#include "tests/support/scratch_dir.h"

namespace millrace::partitioners {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The test program's scratch directory, removed when it exits.
const test_support::ScratchDir& scratch() {
  static const test_support::ScratchDir dir("ranges_file_test");
  return dir;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = scratch().file(name);
  std::ofstream(path) << text;
  return path;
}

// The message of the error reading `text` throws (fails the test when nothing is thrown).
std::string error_of(const std::string& name, const std::string& text) {
  try {
    read_ranges_file(write_file(name, text));
  } catch (const data::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << name << ": no error";
  return "";
}

std::vector<data::Range> tiling(const RangesFile& file) { return file.partition().ranges; }

TEST(RangesFile, EndCountLinesInAnyOrderAreSortedWithTheirLines) {
  const RangesFile file = read_ranges_file(write_file("ec.txt", "299/100\n99/100\n\n199/100\n"));
  ASSERT_EQ(file.ranges.size(), 3u);
  EXPECT_EQ(file.ranges[0].range, (data::Range{0, 100}));
  EXPECT_THAT(file.where(file.ranges[0]), AllOf(StartsWith(file.path), HasSubstr(":2")));
  EXPECT_THAT(file.where(file.ranges[2]), HasSubstr("ec.txt:1"));
  EXPECT_EQ(file.overlap, 0);
  EXPECT_EQ(file.span(), (data::Range{0, 300}));
}

TEST(RangesFile, DeclaredOverlapGivesTheTilingAsTheDeployedGeneratorCutsIt) {
  // stellar's tip-down generator: END = tip, tip - 16000, ..., each COUNT 16000 + 320.
  const RangesFile file =
      read_ranges_file(write_file("stellar.txt", "# overlap 320\n54326463/16320\n54310463/16320\n54294463/16320\n"));
  EXPECT_EQ(file.overlap, 320);
  EXPECT_EQ(tiling(file), (std::vector<data::Range>{{54278464, 16000}, {54294464, 16000}, {54310464, 16000}}));
  EXPECT_EQ(file.partition().work_ranges().front(), (data::Range{54278144, 16320}));
  EXPECT_EQ(file.span(), (data::Range{54278464, 48000}));
}

TEST(RangesFile, CsvWithoutHeaderIsFirstCount) {
  const RangesFile file = read_ranges_file(write_file("fc.csv", "0,10\n10, 5\n15,1\n"));
  EXPECT_EQ(tiling(file), (std::vector<data::Range>{{0, 10}, {10, 5}, {15, 1}}));
}

TEST(RangesFile, CsvHeaderNamesFirstLastAndExtraColumnsAreIgnored) {
  const RangesFile a = read_ranges_file(write_file("fl.csv", "first,last\n-5,4\n5,9\n"));
  EXPECT_EQ(tiling(a), (std::vector<data::Range>{{-5, 10}, {5, 5}}));
  // What `partition --format csv --model` writes.
  const RangesFile b = read_ranges_file(write_file("part.csv", "first,last,count,predicted_s\n0,9,10,1.5\n10,11,2,0.2\n"));
  EXPECT_EQ(tiling(b), (std::vector<data::Range>{{0, 10}, {10, 2}}));
}

TEST(RangesFile, JsonArrayAndObjectWithOverlap) {
  const RangesFile a = read_ranges_file(write_file("a.json", R"([{"first": 0, "count": 4}, {"first": 4, "last": 9}])"));
  EXPECT_EQ(tiling(a), (std::vector<data::Range>{{0, 4}, {4, 6}}));
  // What `partition --format json` writes: work ranges (overlap included) and the overlap.
  const RangesFile b = read_ranges_file(write_file("b.json", R"({
  "partitioner": "uniform",
  "overlap": 2,
  "ranges": [
    {"first": -2, "last": 9, "count": 12},
    {"first": 8, "last": 19, "count": 12}
  ]
})"));
  EXPECT_EQ(b.overlap, 2);
  EXPECT_EQ(tiling(b), (std::vector<data::Range>{{0, 10}, {10, 10}}));
}

TEST(RangesFile, JsonRequestsAreQuantitiesInRangeOrder) {
  const RangesFile f = read_ranges_file(write_file("requests.json", R"({"ranges": [
    {"first": 4, "count": 6, "request.cpu": "500m", "request.memory": "1Gi"},
    {"first": 0, "count": 4, "request.nvidia.com/gpu": 1}
  ]})"));
  ASSERT_EQ(f.requests().size(), 2u);
  EXPECT_EQ(f.requests()[0], (data::Quantities{{"nvidia.com/gpu", 1000}}));  // sorted: 0 first
  EXPECT_EQ(f.requests()[1], (data::Quantities{{"cpu", 500}, {"memory", 1024LL * 1024 * 1024 * 1000}}));
  // Equal sets are kept once; the requests stop at the last range that asks for something.
  const RangesFile g = read_ranges_file(write_file("shared-requests.json", R"({"ranges": [
    {"first": 0, "count": 4, "request.cpu": "1"},
    {"first": 4, "count": 4},
    {"first": 8, "count": 4, "request.cpu": "1000m"},
    {"first": 12, "count": 4}
  ]})"));
  EXPECT_EQ(g.request_sets.size(), 2u) << "the empty set and cpu=1";
  const data::Quantities one_cpu{{"cpu", 1000}};
  EXPECT_EQ(g.requests(), (std::vector<data::Quantities>{one_cpu, {}, one_cpu}));
  EXPECT_TRUE(read_ranges_file(write_file("no-requests.json", R"([{"first": 0, "count": 4}])")).requests().empty());
  EXPECT_THAT(error_of("bad-request.json", "[\n{\"first\": 0, \"count\": 4,\n \"request.cpu\": \"2x\"}]"),
              AllOf(HasSubstr("bad-request.json:2: request.cpu: quantity '2x'")));
  EXPECT_THAT(error_of("list-request.json", "[{\"first\": 0, \"count\": 4, \"request.cpu\": [1]}]"),
              HasSubstr("list-request.json:1: request.cpu: a quantity must be a string or a number"));
}

TEST(RangesFile, OverlapWithoutDeclarationNamesBothLines) {
  const std::string message = error_of("undeclared.txt", "99/100\n\n219/130\n");
  EXPECT_THAT(message, HasSubstr("undeclared.txt:3: "));
  EXPECT_THAT(message, HasSubstr("undeclared.txt:1)"));
  EXPECT_THAT(message, HasSubstr("overlap by 10 units without a declared overlap"));
}

TEST(RangesFile, OverlapOtherThanDeclaredIsRefused) {
  EXPECT_THAT(error_of("more.txt", "# overlap 10\n99/100\n219/140\n"),
              AllOf(HasSubstr("more.txt:3: "), HasSubstr("overlap by 20 units, but the declared overlap is 10")));
  EXPECT_THAT(error_of("less.txt", "# overlap: 10\n99/100\n194/100\n"),
              AllOf(HasSubstr("less.txt:3: "), HasSubstr("overlap by 5 units, but the declared overlap is 10")));
  EXPECT_THAT(error_of("same.csv", "0,10\n0,10\n"), AllOf(HasSubstr("same.csv:2: "), HasSubstr("overlap by 10")));
}

TEST(RangesFile, GapIsRefusedNamingTheUnits) {
  EXPECT_THAT(error_of("gap.csv", "first,count\n0,10\n12,3\n"),
              AllOf(HasSubstr("gap.csv:3: "), HasSubstr("leave units 10..11 in no range"), HasSubstr("gap.csv:2)")));
}

TEST(RangesFile, MalformedTextLinesNameFileAndLine) {
  EXPECT_THAT(error_of("count0.txt", "99/100\n100/0\n"), AllOf(HasSubstr("count0.txt:2: "), HasSubstr("COUNT > 0")));
  EXPECT_THAT(error_of("word.txt", "99/abc\n"), AllOf(HasSubstr("word.txt:1: "), HasSubstr("range COUNT")));
  EXPECT_THAT(error_of("fields.csv", "0,10\n10,5,3\n"),
              AllOf(HasSubstr("fields.csv:2: "), HasSubstr("3 fields, expected 2")));
  EXPECT_THAT(error_of("num.csv", "first,count\n0,ten\n"), AllOf(HasSubstr("num.csv:2: "), HasSubstr("count 'ten'")));
  EXPECT_THAT(error_of("header.csv", "first,size\n0,10\n"),
              AllOf(HasSubstr("header.csv:1: "), HasSubstr("first and count (or first and last)")));
  EXPECT_THAT(error_of("backwards.csv", "first,last\n10,9\n"),
              AllOf(HasSubstr("backwards.csv:2: "), HasSubstr("last 9 is before first 10")));
  EXPECT_THAT(error_of("zero.csv", "5,0\n"), AllOf(HasSubstr("zero.csv:1: "), HasSubstr("count 0")));
  EXPECT_THAT(error_of("disagree.csv", "first,last,count\n0,9,11\n"),
              AllOf(HasSubstr("disagree.csv:2: "), HasSubstr("does not match")));
  EXPECT_THAT(error_of("mixed.txt", "99/100\n100,10\n"),
              AllOf(HasSubstr("mixed.txt:2: "), HasSubstr("expected END/COUNT like line 1")));
  EXPECT_THAT(error_of("short.txt", "# overlap 100\n99/100\n"),
              AllOf(HasSubstr("short.txt:2: "), HasSubstr("not longer than the declared overlap of 100")));
}

TEST(RangesFile, BadOverlapDeclarationsNameTheirLine) {
  EXPECT_THAT(error_of("neg.txt", "99/100\n# overlap -3\n"),
              AllOf(HasSubstr("neg.txt:2: "), HasSubstr("must not be negative")));
  EXPECT_THAT(error_of("twice.txt", "# overlap 3\n# overlap 4\n99/100\n"),
              AllOf(HasSubstr("twice.txt:2: "), HasSubstr("declared again as 4 (was 3)")));
  EXPECT_THAT(error_of("text.txt", "# overlap many\n99/100\n"), AllOf(HasSubstr("text.txt:1: "), HasSubstr("overlap")));
}

// A range nested 100,000 deep crashed every command reading it (the error message dumped it,
// recursing once a level); it is refused when it passes 256 levels, and no message quotes a
// whole value: a string range is quoted as an excerpt, an array named by its kind.
TEST(RangesFile, JsonNestedTooDeepIsRefusedAndMessagesNeverDumpTheInput) {
  constexpr int kDeep = 100'000;
  const std::string deep = error_of("deep.json", std::string(kDeep, '[') + std::string(kDeep, ']'));
  EXPECT_EQ(deep, scratch().file("deep.json") + ":1: malformed JSON: column 257: nested deeper than 256 levels");
  const std::string listed =
      error_of("deep-list.json", "{\"ranges\": [\n" + std::string(kDeep, '[') + std::string(kDeep, ']') + "]}");
  EXPECT_EQ(listed, scratch().file("deep-list.json") + ":2: malformed JSON: column 255: nested deeper than 256 levels");
  EXPECT_EQ(error_of("shallow.json", "[[[[1, 2]]]]"),
            scratch().file("shallow.json") + ":1: a range must be an object, got an array of 1");
  EXPECT_EQ(error_of("long.json", "[\"" + std::string(1'000'000, 'x') + "\"]"),
            scratch().file("long.json") + ":1: a range must be an object, got '\"" + std::string(79, 'x') +
                "…' (1000002 bytes)");
  EXPECT_EQ(error_of("brackets-in-strings.json", "[{\"first\": 0, \"count\": 4, \"note\": \"" + std::string(1000, '[') +
                                                    "\\\"\"}, 7]"),
            scratch().file("brackets-in-strings.json") + ":1: a range must be an object, got '7'");
}

TEST(RangesFile, MalformedJsonNamesTheLineOfTheRange) {
  EXPECT_THAT(error_of("str.json", "[\n  {\"first\": 0, \"count\": 4},\n  \"4/5\"\n]\n"),
              AllOf(HasSubstr("str.json:3: "), HasSubstr("must be an object")));
  EXPECT_THAT(error_of("key.json", "{\"ranges\": [\n  {\"first\": 0, \"count\": 4},\n\n  {\"first\": 4}\n]}\n"),
              AllOf(HasSubstr("key.json:4: "), HasSubstr("needs \"first\" and \"count\"")));
  EXPECT_THAT(error_of("real.json", "[\n{\"first\": 0,\n \"count\": 4.5}]"),
              AllOf(HasSubstr("real.json:2: "), HasSubstr("\"count\" must be an integer")));
  EXPECT_THAT(error_of("syntax.json", "[\n{\"first\": 0, \"count\": 4},\n{\"first\" 4}]\n"),
              AllOf(HasSubstr("syntax.json:3: "), HasSubstr("malformed JSON")));
  EXPECT_THAT(error_of("cut.json", "[\n{\"first\": 0, \"count\": 4},\n"),
              AllOf(HasSubstr("cut.json:"), HasSubstr("truncated file")));
  EXPECT_THAT(error_of("noranges.json", "{\"overlap\": 2}"),
              AllOf(HasSubstr("noranges.json:1: "), HasSubstr("needs a \"ranges\" array")));
  EXPECT_THAT(error_of("overlap.json", "[\n{\"first\": 0, \"count\": 4},\n{\"first\": 3, \"count\": 4}\n]"),
              AllOf(HasSubstr("overlap.json:3: "), HasSubstr("overlap.json:2)"), HasSubstr("without a declared")));
}

TEST(RangesFile, EmptyOrRangelessFilesAreRefused) {
  EXPECT_THAT(error_of("empty.txt", "\n\n"), HasSubstr("empty.txt: empty file"));
  EXPECT_THAT(error_of("comments.txt", "# overlap 2\n# nothing else\n"), HasSubstr("comments.txt: no ranges"));
  EXPECT_THAT(error_of("header-only.csv", "first,count\n"), HasSubstr("header-only.csv: no ranges"));
  EXPECT_THAT(error_of("empty.json", "[]"), HasSubstr("empty.json: no ranges"));
  EXPECT_THROW(read_ranges_file(scratch().file("missing.txt")), data::Error);
}

TEST(RangesFile, RangeOutsideTheModelNamesFileLineAndTheModelSpan) {
  const data::CostModel model({{{0, 50}, 1.0, 2.0}, {{50, 50}, 1.0, 3.0}}, "ledgers");
  const RangesFile inside = read_ranges_file(write_file("inside.txt", "49/50\n99/50\n"));
  EXPECT_NO_THROW(require_within_model(inside, model));
  const RangesFile outside = read_ranges_file(write_file("outside.txt", "49/50\n99/50\n100/1\n"));
  try {
    require_within_model(outside, model);
    ADD_FAILURE() << "no error";
  } catch (const data::Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("outside.txt:3: range 100/1"), HasSubstr("units 100:100"),
                                HasSubstr("model's span 0:99 (100 ledgers)")));
  }
}

TEST(RangesFile, NumbersBeyondSixtyFourBitsAreRefusedNamingTheLine) {
  EXPECT_THAT(error_of("wide.csv", "first,last\n-9223372036854775808,9223372036854775807\n"),
              AllOf(HasSubstr("wide.csv:2: "), HasSubstr("does not fit in 64-bit unit numbers")));
  EXPECT_THAT(error_of("end.csv", "first,count\n9223372036854775000,1000\n"),
              AllOf(HasSubstr("end.csv:2: "), HasSubstr("range first 9223372036854775000 count 1000 does not fit")));
  EXPECT_THAT(error_of("unsigned.json", "[\n{\"first\": 18446744073709551615, \"count\": 1}]\n"),
              AllOf(HasSubstr("unsigned.json:2: "), HasSubstr("\"first\" 18446744073709551615 does not fit")));
  EXPECT_THAT(error_of("span.csv", "first,count\n-9223372036854775808,9223372036854775807\n-1,9223372036854775807\n"),
              AllOf(HasSubstr("span.csv: "), HasSubstr("the span of the ranges does not fit")));
  EXPECT_THAT(error_of("mismatch.csv", "first,count,last\n9223372036854775807,2,0\n"),
              AllOf(HasSubstr("mismatch.csv:2: "), HasSubstr("does not match first 9223372036854775807 + count 2 - 1")));
}

}  // namespace
}  // namespace millrace::partitioners
