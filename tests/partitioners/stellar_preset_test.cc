// The stellar-pubnet preset: `partition --format end-count` writes the deployment's uniform
// generator's list byte for byte after its "# overlap 320" line (END = tip, tip - 16000, ... while END > start, each /16320),
// checked against hand-computed lists and against the ranges of the real 2024-11 recording.
#include <array>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "data/error.h"
#include "partitioners/preset.h"
#include "partitioners/registry.h"

namespace millrace::partitioners {
namespace {

struct Output {
  int status = 0;
  std::string out;
};

Output run_cli(const std::string& args) {
  Output result;
  FILE* pipe = popen((std::string(MILLRACE_CLI) + " " + args + " 2>/dev/null").c_str(), "r");
  std::array<char, 4096> buffer;
  for (std::size_t n; (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) result.out.append(buffer.data(), n);
  result.status = pclose(pipe);
  return result;
}

// The message of the data::Error `call` throws ("" when it throws none).
template <typename Call>
std::string error_of(Call call) {
  try {
    call();
  } catch (const data::Error& e) {
    return e.what();
  }
  return "";
}

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(StellarPreset, UniformEndCountMatchesTheHandComputedListForACheckpointTip) {
  // tip 100031 = 64 * 1563 - 1 ends a checkpoint; ENDs above start 0 every 16000 down to 4031.
  const Output o = run_cli("partition --preset stellar-pubnet --tip 100031 --format end-count");
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out,
            "# overlap 320\n100031/16320\n84031/16320\n68031/16320\n52031/16320\n36031/16320\n20031/16320\n4031/16320\n");
}

TEST(StellarPreset, UniformEndCountMatchesTheHandComputedListForAnUnalignedTipAndStart) {
  // Their generator does not align: from tip 50000 down while END > 1000 (2000 is the last).
  const Output o = run_cli("partition --preset stellar-pubnet --tip 50000 --start 1000 --format end-count");
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out, "# overlap 320\n50000/16320\n34000/16320\n18000/16320\n2000/16320\n");
}

TEST(StellarPreset, UniformEndCountReproducesTheRangesOfTheRecordedPubnetRun) {
  std::ifstream csv(std::string(MILLRACE_SOURCE_DIR) +
                    "/data/sets/stellar-pcv2-2024-11/pcv2_run_2024-11_per_range_timings.csv");
  std::set<std::string> recorded;
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    const std::size_t a = line.find(','), b = line.find(',', a + 1);
    recorded.insert(line.substr(0, a) + "/" + line.substr(a + 1, b - a - 1));
  }
  ASSERT_EQ(recorded.size(), 3396u);
  const Output o = run_cli("partition --preset stellar-pubnet --tip 54326463 --format end-count");
  ASSERT_EQ(o.status, 0);
  const std::string header = "# overlap 320\n";
  ASSERT_EQ(o.out.substr(0, header.size()), header);
  std::set<std::string> generated;
  std::size_t lines = 0;
  for (std::size_t at = header.size(), nl; (nl = o.out.find('\n', at)) != std::string::npos; at = nl + 1, ++lines) {
    generated.insert(o.out.substr(at, nl - at));
  }
  EXPECT_EQ(lines, 3396u);
  EXPECT_EQ(generated, recorded);
  EXPECT_EQ(o.out.substr(header.size(), 30), "54326463/16320\n54310463/16320\n");
  EXPECT_EQ(o.out.substr(o.out.size() - 11), "6463/16320\n");
}

TEST(StellarPreset, TipDownSpanGivesTheLowestRangeItsFullLengthBelowTheStart) {
  EXPECT_EQ(tip_down_span(100031, 0, 16000), (data::Range{100031 - 7 * 16000 + 1, 7 * 16000}));
  EXPECT_EQ(tip_down_span(48000, 0, 16000), (data::Range{1, 48000}));
  EXPECT_THROW(tip_down_span(10, 10, 16000), data::Error);
}

TEST(StellarPreset, TheRecordingsEndsAreCheckpointLedgers) {
  EXPECT_TRUE(ends_checkpoint(54326463, 64));
  EXPECT_TRUE(ends_checkpoint(6463, 64));
  EXPECT_FALSE(ends_checkpoint(50000, 64));
}

TEST(StellarPreset, CheckpointEndsOfNegativeAndExtremeLedgersAndABadAlignment) {
  EXPECT_TRUE(ends_checkpoint(-1, 64));   // 0 is a multiple of 64
  EXPECT_TRUE(ends_checkpoint(-65, 64));  // -64 is
  EXPECT_FALSE(ends_checkpoint(-64, 64));
  EXPECT_TRUE(ends_checkpoint(kMax, 64));  // 2^63 is
  EXPECT_FALSE(ends_checkpoint(kMin, 64));
  EXPECT_TRUE(ends_checkpoint(kMin, 1));
  EXPECT_EQ(error_of([] { ends_checkpoint(100, 0); }), "checkpoint alignment 0: must be >= 1");
  EXPECT_EQ(error_of([] { ends_checkpoint(100, -64); }), "checkpoint alignment -64: must be >= 1");
  EXPECT_NE(run_cli("partition --preset stellar-pubnet --tip 100031 --align 0 --format end-count").status, 0);
}

TEST(StellarPreset, TipDownSpansBeyond64BitUnitNumbersAreRefused) {
  EXPECT_EQ(tip_down_span(kMax - 1, -1, kMax), (data::Range{0, kMax}));  // the end, kMax, still fits
  const std::string too_far = "do not fit in 64-bit unit numbers";
  EXPECT_EQ(error_of([] { tip_down_span(kMax, 0, 16000); }),
            "tip 9223372036854775807: the ranges of 16000 down to the start ledger 0 " + too_far);
  EXPECT_NE(error_of([] { tip_down_span(kMax - 1, -2, kMax); }).find(too_far), std::string::npos);  // tip - start
  EXPECT_NE(error_of([] { tip_down_span(0, kMin, 2); }).find(too_far), std::string::npos);
  EXPECT_NE(error_of([] { tip_down_span(-1, kMin, 2); }).find(too_far), std::string::npos);  // 2^62 ranges of 2
}

TEST(StellarPreset, LogarithmicWithThePresetHalvesChunksAfterTheFirstHalf) {
  const Preset& p = find_preset("stellar-pubnet");
  PartitionParams params{.span = {1, 64'000'000}, .workers = 4, .overlap = p.overlap, .align = p.align,
                         .floor = 4'000'000};
  const Partition part = make_partition("logarithmic", params);
  // First half in 4 chunks of 8 M, then 4 of 4 M, then the rest in floor-length (4 M) ranges.
  ASSERT_GE(part.ranges.size(), 8u);
  EXPECT_NEAR(static_cast<double>(part.ranges[0].count), 8'000'000, 64);
  EXPECT_NEAR(static_cast<double>(part.ranges[4].count), 4'000'000, 64);
  const auto work = part.work_ranges();
  EXPECT_EQ(work.back().count, part.ranges.back().count + 320);
}

TEST(StellarPreset, AnUnknownPresetIsAnErrorListingTheKnownOnes) {
  try {
    find_preset("stellar-testnet");
    FAIL();
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("stellar-pubnet"), std::string::npos);
  }
  EXPECT_NE(run_cli("partition --preset nope --tip 100").status, 0);
}

}  // namespace
}  // namespace millrace::partitioners
