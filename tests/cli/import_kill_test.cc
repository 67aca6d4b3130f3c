// A real `kill -9` in the middle of `millrace import` (data/importers/staged_import.h): the
// import runs as a child process on a big generated file and is SIGKILLed once its first batch
// sits in the store under its hidden run. Readers then see the store as it was before (no part
// of the killed import), a new import of the same file succeeds, and the rows the killed one
// left are gone once it did.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data/importers/staged_import.h"
#include "data/trace_store.h"
#include "tests/cli/cli_process.h"
#include "tests/cli/store_query.h"

namespace millrace {
namespace {

namespace fs = std::filesystem;

using cli_test::CliResult;
using cli_test::query_count;

// A per-range timings CSV of `rows` ranges (columns of data/importers/timing_records.h).
void write_timings(const fs::path& path, int rows, const std::string& prefix) {
  std::ofstream out(path);
  out << "item,first,count,worker,duration_s\n";
  for (int i = 0; i < rows; ++i) out << prefix << i << "," << i * 10 << ",10,w" << i % 8 << "," << 1 + i % 7 << "\n";
}

constexpr const char* kStagedItems = "SELECT count(*) FROM items WHERE run_id IN (SELECT run_id FROM staged_imports)";

class ImportKillTest : public cli_test::CliRunTest {};

TEST_F(ImportKillTest, AnImportKilledMidWayLeavesTheStoreAsItWasAndTheNextImportOfTheFileCleansUp) {
  constexpr int kSmall = 5;
  constexpr int kBig = 5 * static_cast<int>(data::importers::kBatchRows);
  write_timings(dir / "small.csv", kSmall, "s");
  write_timings(dir / "big.csv", kBig, "r");
  ASSERT_EQ(run({"import", "--store", store, "--format", "csv", (dir / "small.csv").string(), "--name", "small"}).exit_code,
            0);
  const std::string runs_before = run({"runs", "--store", store}).out;

  const pid_t import = start({"import", "--store", store, "--format", "csv", (dir / "big.csv").string(), "--name", "big"});
  ASSERT_GT(import, 1);
  // Killed once its first batch is in the store, well before the last (five batches).
  std::int64_t staged = 0;
  for (int i = 0; i < 6000 && staged < static_cast<std::int64_t>(data::importers::kBatchRows); ++i) {
    usleep(10'000);
    staged = query_count(store, kStagedItems);
  }
  ASSERT_GE(staged, static_cast<std::int64_t>(data::importers::kBatchRows)) << "the import never staged a batch";
  ASSERT_LT(staged, kBig);
  kill(import, SIGKILL);
  ASSERT_EQ(finish(import).exit_code, 128 + SIGKILL);

  // Readers: nothing of the killed import, though its rows sit in the store.
  EXPECT_EQ(query_count(store, "SELECT count(*) FROM staged_imports"), 1);
  EXPECT_GE(query_count(store, kStagedItems), staged);
  CliResult runs = run({"runs", "--store", store});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(runs.out, runs_before);
  CliResult show = run({"show", "--store", store, "big"});
  EXPECT_EQ(show.exit_code, 1);
  EXPECT_NE(show.err.find("no run with id or name 'big'"), std::string::npos) << show.err;
  EXPECT_EQ(data::TraceStore::open_for_reading(store).runs().size(), 1u);

  // The same file again: imported whole, and the killed import's rows removed.
  CliResult again = run({"import", "--store", store, "--format", "csv", (dir / "big.csv").string(), "--name", "big"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  static_assert(kBig == 50'000, "the counts below are written out grouped");
  EXPECT_NE(again.out.find("'big': 50,000 items, 50,000 attempts"), std::string::npos) << again.out;
  EXPECT_EQ(query_count(store, "SELECT count(*) FROM staged_imports"), 0);
  EXPECT_EQ(query_count(store, "SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(query_count(store, "SELECT count(*) FROM items"), kSmall + kBig);
  EXPECT_EQ(query_count(store, "SELECT count(*) FROM attempts"), kSmall + kBig);
  EXPECT_EQ(query_count(store, "SELECT count(*) FROM staged_attempt_sources"), 0);
  data::TraceStore reader = data::TraceStore::open_for_reading(store);
  ASSERT_EQ(reader.runs().size(), 2u);
  const std::int64_t big = reader.find_run("big");
  EXPECT_EQ(reader.items(big).size(), static_cast<std::size_t>(kBig));
  EXPECT_EQ(reader.items(big).back().id, "r" + std::to_string(kBig - 1));
}

}  // namespace
}  // namespace millrace
