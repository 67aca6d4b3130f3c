#include "data/importers/swf_importer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::TempDir;
using testing::write_file;

TEST(SwfImport, EachJobBecomesAnItemAndAnAttemptAfterItsWait) {
  TempDir dir;
  write_file(dir.file("t.swf"),
             "; Version: 2.2\n; Computer: Intel iPSC/860\n; Note: first\n;       continued\n; Note: second\n"
             "    1   100   20  300  128 -1 -1 64 600 -1  1  3  1  7  1  2 -1 -1\n"
             "    2   150   -1   50    8 -1 -1 -1  -1 -1  0  4  1 -1 -1 -1  1 -1\n"
             "    3   160    5   -1    1 -1 -1 -1  -1 -1  5  4  1 -1 -1 -1 -1 -1\n"
             "    4   170    0   10    1 -1 -1 -1  -1 -1  5  4  1 -1 -1 -1 99 -1\n");
  auto trace = importers::read_swf(dir.file("t.swf"));
  EXPECT_EQ(trace.run.units, "jobs");
  EXPECT_EQ(trace.run.source, RunSource::kRecorded);
  auto params = nlohmann::json::parse(trace.run.parameters);
  EXPECT_EQ(params["swf_header"]["Computer"], "Intel iPSC/860");
  EXPECT_EQ(params["swf_header"]["Note"], "first second");

  ASSERT_EQ(trace.items.size(), 4u);
  EXPECT_EQ(trace.items[0].id, "1");
  EXPECT_EQ(trace.items[0].type, "job");
  EXPECT_EQ(trace.items[0].submit_at, 100 * kMicrosPerSecond);
  EXPECT_FALSE(trace.items[0].range.has_value());
  auto payload = nlohmann::json::parse(trace.items[0].payload);
  EXPECT_EQ(payload["processors"], 128);
  EXPECT_EQ(payload["requested_processors"], 64);
  EXPECT_EQ(payload["executable"], 7);
  EXPECT_FALSE(payload.contains("used_memory_kb"));
  EXPECT_EQ(trace.items[0].requests.at("cpu"), 128'000);  // allocated processors, one CPU each
  EXPECT_EQ(trace.items[1].requests.at("cpu"), 8'000);
  EXPECT_EQ(trace.items[1].depends_on, std::vector<std::string>{"1"});
  EXPECT_TRUE(trace.items[3].depends_on.empty());  // preceding job 99 is not in the log

  ASSERT_EQ(trace.attempts.size(), 3u);  // job 3 has no recorded run time
  EXPECT_EQ(trace.attempts[0].start, 120 * kMicrosPerSecond);
  EXPECT_EQ(trace.attempts[0].end, 420 * kMicrosPerSecond);
  EXPECT_EQ(trace.attempts[0].worker, "partition-2");
  EXPECT_EQ(trace.attempts[0].outcome, Outcome::kSucceeded);
  EXPECT_EQ(trace.attempts[1].start, 150 * kMicrosPerSecond);  // unknown wait counts as 0
  EXPECT_EQ(trace.attempts[1].outcome, Outcome::kFailed);
  EXPECT_EQ(trace.attempts[1].exit_code, 1);
  EXPECT_EQ(trace.attempts[2].outcome, Outcome::kCancelled);
  EXPECT_EQ(trace.run.started, 120 * kMicrosPerSecond);
  EXPECT_EQ(trace.run.ended, 420 * kMicrosPerSecond);
}

}  // namespace
}  // namespace millrace::data
