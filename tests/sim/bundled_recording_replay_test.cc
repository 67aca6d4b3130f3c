// Golden case (issue 9): the bundled Stellar catch-up recording replayed as recorded (fixed pool
// of 192, tip-first order) through the CLI, checked against figures computed here from the CSV
// alone: total busy time, and the makespan of the same greedy list schedule (each range in
// tip-first order to the worker free earliest, lowest worker first on ties).
#include <gtest/gtest.h>


#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <queue>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/support/scratch_dir.h"

namespace {

struct RecordedRange {
  std::int64_t end_ledger = 0;
  std::int64_t micros = 0;
};

std::vector<RecordedRange> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<RecordedRange> ranges;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    ranges.push_back({std::stoll(fields[0]), std::llround(std::stod(fields[5]) * 1e6)});
  }
  return ranges;
}

TEST(BundledRecordingReplay, FixedPoolTipFirstMatchesAListScheduleComputedFromTheCsv) {
  const std::string csv =
      std::string(MILLRACE_SOURCE_DIR) + "/data/sets/stellar-pcv2-2024-11/pcv2_run_2024-11_per_range_timings.csv";
  std::vector<RecordedRange> ranges = read_csv(csv);
  ASSERT_EQ(ranges.size(), 3396u);
  std::sort(ranges.begin(), ranges.end(), [](auto& a, auto& b) { return a.end_ledger > b.end_ledger; });

  constexpr int kWorkers = 192;
  using Free = std::pair<std::int64_t, int>;  // (free at, worker index)
  std::priority_queue<Free, std::vector<Free>, std::greater<>> free;
  for (int w = 0; w < kWorkers; ++w) free.push({0, w});
  std::int64_t makespan = 0;
  std::int64_t busy = 0;
  for (const RecordedRange& r : ranges) {
    auto [at, worker] = free.top();
    free.pop();
    free.push({at + r.micros, worker});
    makespan = std::max(makespan, at + r.micros);
    busy += r.micros;
  }

  const millrace::test_support::ScratchDir scratch;
  const std::string store = scratch.file("bundled_replay.db");
  auto imported = millrace::test_support::run_cli("import --store " + store + " --format stellar-csv --name pcv2 " + csv);
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  auto simulated = millrace::test_support::run_cli("simulate --store " + store +
                                                   " --run pcv2 --policy fixed-pool --workers 192 --order plan --json --no-record");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.output;
  const nlohmann::json out = nlohmann::json::parse(simulated.output);
  EXPECT_EQ(out["busy_us"].get<std::int64_t>(), busy);
  EXPECT_EQ(out["makespan_us"].get<std::int64_t>(), makespan);
  EXPECT_EQ(out["succeeded"].get<std::size_t>(), ranges.size());
}

}  // namespace
