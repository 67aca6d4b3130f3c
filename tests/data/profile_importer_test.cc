// `import --format profile`: per-unit cost series in CSV and JSON, the two cost columns, and
// every malformed case naming file:line; and the profile summary `show` prints, checked against
// a unit-by-unit reference.
#include <algorithm>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/error.h"
#include "data/importers/importers.h"
#include "data/importers/profile_importer.h"
#include "data/profile_summary.h"
#include "tests/support/scratch_dir.h"

namespace millrace::data::importers {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The test program's scratch directory, removed when it exits.
const test_support::ScratchDir& scratch() {
  static const test_support::ScratchDir dir("profile_importer_test");
  return dir;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = scratch().file("profile_importer_test_" + name);
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& name, const std::string& text) {
  try {
    read_cost_profile(write_file(name, text));
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << name << ": no error";
  return "";
}

TEST(ProfileImporter, CsvPerUnitCostsBecomeBins) {
  const CostProfile p = read_cost_profile(write_file("unit.csv", "first,count,unit_cost_us\n10,5,2.5\n15,1,0\n"));
  EXPECT_EQ(p.bins, (std::vector<ProfileBin>{{{10, 5}, 2.5}, {{15, 1}, 0.0}}));
  EXPECT_EQ(p.units, "units");
}

TEST(ProfileImporter, CsvRowCostsInSecondsAreSpreadOverTheRow) {
  const CostProfile p = read_cost_profile(write_file("row.csv", "count,first,cost_s\n4,0,2\n"));
  EXPECT_EQ(p.bins, (std::vector<ProfileBin>{{{0, 4}, 500000.0}}));
}

TEST(ProfileImporter, JsonArrayOrObjectWithUnits) {
  const CostProfile a = read_cost_profile(
      write_file("a.json", R"([{"first": 0, "count": 2, "unit_cost_us": 3}, {"first": 2, "count": 2, "cost_s": 1}])"));
  EXPECT_EQ(a.bins, (std::vector<ProfileBin>{{{0, 2}, 3.0}, {{2, 2}, 500000.0}}));
  const CostProfile b =
      read_cost_profile(write_file("b.json", R"({"units": "blocks", "rows": [{"first": 5, "count": 1, "cost_s": 0.5}]})"));
  EXPECT_EQ(b.units, "blocks");
  EXPECT_EQ(b.bins, (std::vector<ProfileBin>{{{5, 1}, 500000.0}}));
}

TEST(ProfileImporter, TheRegistryNamesTheProfileAfterTheFileOrTheOption) {
  const std::string path = write_file("named.csv", "first,count,unit_cost_us\n0,1,1\n");
  EXPECT_EQ(parse_input("profile", path).profile->name, "profile_importer_test_named");
  EXPECT_EQ(parse_input("profile", path, {"mine", "size"}).profile->name, "mine");
}

TEST(ProfileImporter, GapsAndOverlapsNameBothRows) {
  EXPECT_THAT(error_of("gap.csv", "first,count,unit_cost_us\n0,5,1\n7,5,1\n"),
              AllOf(HasSubstr("gap.csv:3: gap: units 5..6"), HasSubstr("gap.csv:2)")));
  EXPECT_THAT(error_of("overlap.csv", "first,count,unit_cost_us\n0,5,1\n4,5,1\n"),
              AllOf(HasSubstr("overlap.csv:3: row starts at 4, inside the row before"), HasSubstr("overlap.csv:2,")));
  EXPECT_THAT(error_of("gap.json", "[\n{\"first\": 0, \"count\": 5, \"cost_s\": 1},\n\n{\"first\": 9, \"count\": 1, "
                                   "\"cost_s\": 1}\n]"),
              AllOf(HasSubstr("gap.json:4: gap: units 5..8"), HasSubstr("gap.json:2)")));
}

TEST(ProfileImporter, MalformedRowsNameFileAndLine) {
  EXPECT_THAT(error_of("header.csv", "first,count,cost\n0,1,1\n"),
              AllOf(HasSubstr("header.csv:1: "), HasSubstr("first,count,unit_cost_us")));
  EXPECT_THAT(error_of("neg.csv", "first,count,unit_cost_us\n0,1,1\n1,1,-2\n"),
              AllOf(HasSubstr("neg.csv:3: "), HasSubstr("must not be negative")));
  EXPECT_THAT(error_of("count.csv", "first,count,cost_s\n0,0,1\n"), AllOf(HasSubstr("count.csv:2: "), HasSubstr("COUNT > 0")));
  EXPECT_THAT(error_of("text.csv", "first,count,cost_s\n0,1,fast\n"), AllOf(HasSubstr("text.csv:2: "), HasSubstr("'fast'")));
  EXPECT_THAT(error_of("fields.csv", "first,count,cost_s\n0,1\n"), HasSubstr("fields.csv:2: "));
  EXPECT_THAT(error_of("both.json", "[\n{\"first\": 0, \"count\": 1, \"cost_s\": 1, \"unit_cost_us\": 1}]"),
              AllOf(HasSubstr("both.json:2: "), HasSubstr("exactly one of unit_cost_us and cost_s")));
  EXPECT_THAT(error_of("first.json", "[\n\n{\"count\": 1, \"cost_s\": 1}]"),
              AllOf(HasSubstr("first.json:3: "), HasSubstr("needs \"first\"")));
  EXPECT_THAT(error_of("real.json", "[\n{\"first\": 0.5, \"count\": 1, \"cost_s\": 1}]"),
              AllOf(HasSubstr("real.json:2: "), HasSubstr("\"first\" must be an integer")));
  EXPECT_THAT(error_of("row.json", "[\n{\"first\": 0, \"count\": 1, \"cost_s\": 1},\n 7]"),
              AllOf(HasSubstr("row.json:3: "), HasSubstr("a row must be an object")));
  EXPECT_THAT(error_of("syntax.json", "[\n{\"first\": 0,,}]"), AllOf(HasSubstr("syntax.json:2: "), HasSubstr("malformed JSON")));
  EXPECT_THAT(error_of("none.json", "[]"), HasSubstr("none.json: no rows"));
}

TEST(ProfileImporter, NumbersBeyondTheirTypesAreRefusedNamingTheLine) {
  EXPECT_THAT(error_of("end.csv", "first,count,unit_cost_us\n9223372036854775000,807,1\n9223372036854775807,1000,1\n"),
              AllOf(HasSubstr("end.csv:3: "), HasSubstr("first 9223372036854775807 + count 1000 does not fit")));
  EXPECT_THAT(error_of("inf.csv", "first,count,cost_s\n0,1,1e305\n"),
              AllOf(HasSubstr("inf.csv:2: "), HasSubstr("cost_s out of range")));
  EXPECT_THAT(error_of("unsigned.json", "{\"rows\": [\n {\"first\": 18446744073709551615, \"count\": 1, \"cost_s\": 1}]}"),
              AllOf(HasSubstr("unsigned.json:2: "), HasSubstr("\"first\" 18446744073709551615 does not fit")));
}

TEST(ProfileSummary, DensestStretchAndTotalMatchAUnitByUnitReference) {
  // 1,000 units in uneven bins; the window is 10 units.
  CostProfile profile{"p", "units", "test", {}};
  const std::int64_t lengths[] = {3, 250, 7, 1, 400, 39, 300};
  const double densities[] = {5, 1, 9, 40, 2, 8, 3};
  std::vector<double> per_unit;
  std::int64_t first = -20;
  for (std::size_t i = 0; i < 7; ++i) {
    profile.bins.push_back({{first, lengths[i]}, densities[i]});
    first += lengths[i];
    per_unit.insert(per_unit.end(), static_cast<std::size_t>(lengths[i]), densities[i]);
  }
  double best = 0;
  std::int64_t best_at = 0;
  for (std::size_t x = 0; x + 10 <= per_unit.size(); ++x) {
    double sum = 0;
    for (std::size_t u = x; u < x + 10; ++u) sum += per_unit[u];
    if (sum > best + 1e-9) {
      best = sum;
      best_at = static_cast<std::int64_t>(x) - 20;
    }
  }
  const data::ProfileSummary s = data::summarise_profile(profile);
  EXPECT_EQ(s.span, (Range{-20, 1000}));
  double total = 0;
  for (double d : per_unit) total += d;
  EXPECT_DOUBLE_EQ(s.total_work, total);
  EXPECT_DOUBLE_EQ(s.densest_work, best);
  EXPECT_EQ(s.densest, (Range{best_at, 10}));
}

}  // namespace
}  // namespace millrace::data::importers
