// Stored comparisons keep each row's cost (data/schema.sql migration 14): the band and its pools
// read back exactly as recorded (the JSON of the row read back equal to the JSON of the row
// recorded), unpriced rows have none, and a store made before migration 14 reads its rows with no
// cost, migrated or read as it is.
#include <gtest/gtest.h>

#include <string>

#include <sqlite3.h>

#include "data/error.h"
#include "data/money.h"
#include "data/trace_store.h"
#include "sim/comparison_store.h"
#include "tests/support/older_store.h"
#include "tests/support/scratch_dir.h"

namespace millrace::sim {
namespace {

data::Money money(const char* text) { return data::parse_money(text, "test"); }

// Two rows: the first priced on two pools (means 12.345678 and 0.50), the second not priced.
Comparison two_rows() {
  Comparison comparison;
  ComparisonRow priced;
  priced.partitioner = "uniform";
  priced.workers = 8;
  priced.order = "plan";
  priced.ranges = 16;
  priced.replicas = 20;
  priced.makespan_mean = 7'200'000'000;
  priced.makespan_p10 = 7'000'000'000;
  priced.makespan_p50 = 7'100'000'000;
  priced.makespan_p90 = 7'500'000'000;
  priced.cost = CostBand{money("12.845678"), money("12.10"), money("12.80"), money("13.999999"), "EUR",
                         {{"cpu", money("12.345678")}, {"gpu", money("0.50")}}};
  comparison.rows.push_back(priced);
  ComparisonRow unpriced = priced;
  unpriced.partitioner = "optimal";
  unpriced.cost.reset();
  comparison.rows.push_back(unpriced);
  return comparison;
}

ComparisonHeader header() { return {"compare", "m.json", {0, 100}, nlohmann::json::object(), {}}; }

TEST(ComparisonStore, APricedRowReadsBackItsCostBandAndPoolsExactly) {
  test_support::ScratchDir dir;
  const std::string path = dir.file("s.db");
  const Comparison recorded = two_rows();
  std::int64_t id = 0;
  {
    data::TraceStore store = data::TraceStore::open(path);
    id = record_comparison(store, header(), recorded);
  }
  const data::TraceStore store = data::TraceStore::open_for_reading(path);
  const std::vector<ComparisonRow> rows = stored_rows(store, id);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].cost.has_value());
  EXPECT_EQ(*rows[0].cost, *recorded.rows[0].cost);
  EXPECT_EQ(to_json(*rows[0].cost), to_json(*recorded.rows[0].cost));
  EXPECT_EQ(to_json(*rows[0].cost).dump(),
            R"({"currency":"EUR","mean":"12.845678","p10":"12.10","p50":"12.80","p90":"13.999999",)"
            R"("pools":{"cpu":{"mean":"12.345678"},"gpu":{"mean":"0.50"}}})");
  EXPECT_FALSE(rows[1].cost.has_value());
  EXPECT_EQ(rows[1].partitioner, "optimal");
  EXPECT_EQ(stored_row(store, id, 0).cost, recorded.rows[0].cost);
  EXPECT_FALSE(stored_row(store, id, 1).cost.has_value());
}

TEST(ComparisonStore, AStoreFromBeforeCostsReadsItsRowsWithoutCostMigratedOrAsItIs) {
  test_support::ScratchDir dir;
  const std::string path = dir.file("v13.db");
  std::int64_t id = 0;
  {
    // A store of version 13 with a comparison in it (its costs, as an older millrace had none).
    data::TraceStore fresh = data::TraceStore::open(path);
    id = record_comparison(fresh, header(), two_rows());
    ASSERT_EQ(sqlite3_exec(fresh.handle(),
                           (std::string(test_support::kUndoMigration14) + "PRAGMA user_version = 13").c_str(), nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
  }
  {
    // Read as it is: open_for_reading never migrates.
    const data::TraceStore as_it_is = data::TraceStore::open_for_reading(path);
    ASSERT_EQ(as_it_is.schema_version(), 13);
    const std::vector<ComparisonRow> rows = stored_rows(as_it_is, id);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].makespan_p90, 7'500'000'000);
    EXPECT_FALSE(rows[0].cost.has_value());
  }
  data::TraceStore migrated = data::TraceStore::open(path);
  EXPECT_EQ(migrated.schema_version(), data::TraceStore::current_schema_version());
  EXPECT_FALSE(stored_rows(migrated, id)[0].cost.has_value());
  const std::int64_t again = record_comparison(migrated, header(), two_rows());
  EXPECT_EQ(stored_rows(migrated, again)[0].cost, two_rows().rows[0].cost);
}

TEST(ComparisonStore, AMissingComparisonIsNamed) {
  test_support::ScratchDir dir;
  const data::TraceStore store = data::TraceStore::open(dir.file("s.db"));
  try {
    stored_rows(store, 7);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no comparison 7 (see `millrace runs`)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace millrace::sim
