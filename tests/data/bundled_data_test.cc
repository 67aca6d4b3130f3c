// Golden cases on the real datasets bundled in data/sets/: import counts and totals, checked
// against figures computed here from the files with plain code (not the importers). Import
// times are printed (measured, never asserted).
#include <zlib.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "data/importers/importers.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::TempDir;

const std::string kSets = std::string(MILLRACE_SOURCE_DIR) + "/data/sets/";
const std::string kStellarCsv = kSets + "stellar-pcv2-2024-11/pcv2_run_2024-11_per_range_timings.csv";
const std::string kStellarLog = kSets + "stellar-pcv2-2024-11/stellar-supercluster.log";
const std::string kSwf = kSets + "pwa-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz";
const std::string kEthereum = kSets + "ethereum-daily-2015-2018";

struct Timed {
  importers::ImportResult result;
  double millis = 0;
};

Timed timed_import(TraceStore& store, const std::string& format, const std::string& path) {
  auto t0 = std::chrono::steady_clock::now();
  auto result = importers::import_file(store, format, path);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ measured ] import --format " << format << " " << path.substr(kSets.size()) << ": " << ms
            << " ms\n";
  return {result, ms};
}

// Plain reading of the stellar CSV: per-range seconds and tx-apply ms as written.
struct StellarTotals {
  std::size_t ranges = 0;
  std::int64_t total_s = 0;
  double tx_apply_ms = 0;
  data::Quantities busy_s;
  std::int64_t longest_s = 0;
};

StellarTotals read_stellar_totals() {
  std::ifstream in(kStellarCsv);
  std::string line;
  std::getline(in, line);
  StellarTotals t;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string end, count, first, worker, tx, total;
    std::getline(fields, end, ',');
    std::getline(fields, count, ',');
    std::getline(fields, first, ',');
    std::getline(fields, worker, ',');
    std::getline(fields, tx, ',');
    std::getline(fields, total, ',');
    ++t.ranges;
    t.total_s += std::stoll(total);
    t.tx_apply_ms += std::stod(tx);
    t.busy_s[worker] += std::stoll(total);
    t.longest_s = std::max<std::int64_t>(t.longest_s, std::stoll(total));
  }
  return t;
}

TEST(BundledStellar, CsvImportHasEveryRangeAndTheRecordedTotals) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  auto imported = timed_import(store, "stellar-csv", kStellarCsv).result;
  auto expected = read_stellar_totals();
  EXPECT_EQ(expected.ranges, 3396u);
  EXPECT_EQ(expected.busy_s.size(), 192u);
  EXPECT_EQ(imported.items, expected.ranges);
  EXPECT_EQ(imported.attempts, expected.ranges);

  auto attempts = store.attempts(imported.run_id);
  Micros total = 0, work = 0, longest = 0;
  std::map<std::string, Micros> busy;
  for (const auto& a : attempts) {
    total += a.duration();
    work += *a.work_time;
    busy[a.worker] += a.duration();
    longest = std::max(longest, a.duration());
  }
  EXPECT_EQ(total, expected.total_s * kMicrosPerSecond);
  EXPECT_NEAR(static_cast<double>(work) / kMicrosPerMilli, expected.tx_apply_ms, 1.0);  // 1 ms over 3,396 roundings
  EXPECT_EQ(longest, expected.longest_s * kMicrosPerSecond);
  ASSERT_EQ(busy.size(), expected.busy_s.size());
  Micros makespan = 0;
  for (const auto& [worker, seconds] : expected.busy_s) {
    EXPECT_EQ(busy[worker], seconds * kMicrosPerSecond) << worker;
    makespan = std::max(makespan, seconds * kMicrosPerSecond);
  }
  // Back to back from 0: the run ends when the busiest worker does.
  EXPECT_EQ(store.run(imported.run_id).ended, makespan);
  auto items = store.items(imported.run_id);
  EXPECT_EQ(items.front().id, "54326463/16320");  // tip first
  EXPECT_EQ(items.back().range, (Range{-9856, 16320}));
}

TEST(BundledStellar, RawLogImportEqualsTheCsvImport) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  auto from_csv = timed_import(store, "stellar-csv", kStellarCsv).result;
  auto from_log = timed_import(store, "stellar-log", kStellarLog).result;
  EXPECT_EQ(store.items(from_log.run_id), store.items(from_csv.run_id));
  auto log_attempts = store.attempts(from_log.run_id);
  auto csv_attempts = store.attempts(from_csv.run_id);
  ASSERT_EQ(log_attempts.size(), csv_attempts.size());
  for (std::size_t i = 0; i < log_attempts.size(); ++i) {
    // The log writes tx apply time with 6 significant digits; the CSV may carry more.
    auto relative = std::abs(static_cast<double>(*log_attempts[i].work_time - *csv_attempts[i].work_time)) /
                    std::max<double>(1.0, static_cast<double>(*csv_attempts[i].work_time));
    EXPECT_LT(relative, 1e-5) << log_attempts[i].item_id;
    log_attempts[i].work_time = csv_attempts[i].work_time;
  }
  EXPECT_EQ(log_attempts, csv_attempts);
}

TEST(BundledSwf, ImportsEveryJobOfTheNasaLog) {
  gzFile in = gzopen(kSwf.c_str(), "rb");
  ASSERT_NE(in, nullptr);
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  gzclose(in);
  std::istringstream lines(text);
  std::size_t jobs = 0;
  std::int64_t run_seconds = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.find(';') != std::string::npos) continue;
    std::istringstream fields(line);
    long long job, submit, wait, run;
    fields >> job >> submit >> wait >> run;
    ++jobs;
    run_seconds += run;
  }
  EXPECT_EQ(jobs, 18239u);

  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  auto imported = timed_import(store, "swf", kSwf).result;
  EXPECT_EQ(imported.items, jobs);
  EXPECT_EQ(imported.attempts, jobs);
  Micros total = 0;
  for (const auto& a : store.attempts(imported.run_id)) total += a.duration();
  EXPECT_EQ(total, run_seconds * kMicrosPerSecond);
}

TEST(BundledEthereum, ProfileSpansEveryBlockOfTheDailySeries) {
  std::ifstream in(kEthereum + "/export-BlockCountRewards.csv");
  std::string line;
  std::getline(in, line);
  std::int64_t blocks = 0;
  std::size_t days = 0;
  while (std::getline(in, line)) {
    auto value = line.substr(line.rfind(",\"") + 2);
    blocks += std::stoll(value.substr(0, value.find('"')));
    ++days;
  }
  EXPECT_EQ(blocks, 6'000'787);

  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  auto imported = timed_import(store, "ethereum", kEthereum).result;
  auto profile = store.profile(imported.name);
  EXPECT_EQ(profile.units, "blocks");
  EXPECT_EQ(profile.bins.size(), days);
  EXPECT_EQ(profile.bins.front().range.first, 0);
  EXPECT_EQ(profile.bins.back().range.end(), blocks);
  EXPECT_EQ(profile.bins.front().micros_per_unit, 644.0);  // first day's average block size, 1 us/byte
}

}  // namespace
}  // namespace millrace::data
