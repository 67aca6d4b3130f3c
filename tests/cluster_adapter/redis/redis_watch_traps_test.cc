// The traps found in the Redis watch (issues 29 and 31), against a real redis-server: a metrics
// line written before the range is marked, a range marked without a metrics line, a server
// restarted empty, a key of another type, worker names that are not UTF-8, durations that would
// start before 1970, and a password given without a user.
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "cluster_adapter/redis/redis_queue.h"
#include "cluster_adapter/redis/redis_watch.h"
#include "cluster_adapter/redis/watch_report.h"
#include "data/importers/stellar_trace.h"
#include "data/redaction.h"
#include "tests/cli/cli_runner.h"
#include "tests/cluster_adapter/redis/redis_server.h"
#include "tests/data/store_fixture.h"

namespace millrace::cluster_adapter {
namespace {

using data::testing::TempDir;
using test_support::run_cli;

constexpr data::Micros s = data::kMicrosPerSecond;
const std::vector<std::string> kPlan = {"48063/16320", "32063/16320", "16063/16320"};

class RedisWatchTrapsTest : public ::testing::Test {
 protected:
  RedisWatchTrapsTest() : redis_(server_.address()), queue_(redis_, {}), store_(data::TraceStore::open(path())) {
    std::vector<data::WorkItem> items;
    for (const std::string& id : kPlan) items.push_back(data::importers::end_count_item({std::stoll(id) - 16320 + 1, 16320}));
    data::Run run;
    run.name = "live";
    run.source = data::RunSource::kReal;
    run_ = store_.add_run(run, items, {});
    queue_.push(kPlan, false);
  }
  std::string path() const { return dir_.file("t.db"); }

  std::string take(const std::string& worker) {
    const std::string range = redis_.command({"LMOVE", "ranges", "in_progress", "LEFT", "LEFT"}).text;
    redis_.command({"HSET", "job_owners", range, worker});
    return range;
  }
  void mark_succeeded(const std::string& range) {
    redis_.transaction({{"LPUSH", "succeeded", range}, {"LREM", "in_progress", "-1", range}, {"HDEL", "job_owners", range}});
  }
  void metrics(const std::string& range, const std::string& worker, const std::string& seconds) {
    redis_.command({"SADD", "metrics", range + "|" + worker + "|1000|" + seconds + "s"});
  }
  std::vector<data::Attempt> attempts() const { return store_.attempts(run_); }

  TempDir dir_;
  testing::RedisServer server_;
  RedisConnection redis_;
  RedisQueue queue_;
  data::TraceStore store_;
  std::int64_t run_ = 0;
  std::ostringstream log_;
};

TEST_F(RedisWatchTrapsTest, AMetricsLineWrittenBeforeTheRangeIsMarkedWaitsForTheListsAndTheRunEnds) {
  RedisWatch watch(queue_, store_, run_, log_);
  for (int i = 0; i < 3; ++i) {
    const std::string range = take("w0");
    metrics(range, "w0", std::to_string(10 + i));
    EXPECT_FALSE(watch.step((100 + 2 * i) * s));
    EXPECT_EQ(attempts().size(), static_cast<std::size_t>(i)) << "recorded before the lists said how it ended";
    mark_succeeded(range);
    EXPECT_EQ(watch.step((101 + 2 * i) * s), i == 2);
  }
  ASSERT_EQ(attempts().size(), 3u);
  for (const data::Attempt& a : attempts()) {
    EXPECT_EQ(a.outcome, data::Outcome::kSucceeded) << a.item_id << " " << a.failure_reason;
    EXPECT_EQ(a.worker, "w0");
  }
  EXPECT_EQ(attempts()[0].duration(), 10 * s);
  // A restarted watch finds the run over and records nothing again.
  RedisWatch restarted(queue_, store_, run_, log_);
  EXPECT_TRUE(restarted.step(200 * s));
  EXPECT_EQ(attempts().size(), 3u);
}

TEST_F(RedisWatchTrapsTest, RangesListedWithoutAMetricsLineAreRecordedAsTheListsSayAndTheRunEnds) {
  RedisWatch watch(queue_, store_, run_, log_);
  const std::string a = take("w0"), b = take("w1"), c = take("w2");
  EXPECT_FALSE(watch.step(100 * s));
  mark_succeeded(a);
  mark_succeeded(b);
  redis_.transaction({{"LPUSH", "failed", c + "|w2"}, {"LREM", "in_progress", "-1", c}, {"HDEL", "job_owners", c}});
  EXPECT_TRUE(watch.step(130 * s));
  std::map<std::string, data::Attempt> by_item;
  for (const data::Attempt& at : attempts()) by_item[at.item_id] = at;
  ASSERT_EQ(by_item.size(), 3u);
  EXPECT_EQ(by_item[a].outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(by_item[a].worker, "w0");
  EXPECT_EQ(by_item[a].start, 100 * s);  // from when it was seen held
  EXPECT_EQ(by_item[a].end, 130 * s);
  EXPECT_EQ(by_item[c].outcome, data::Outcome::kFailed);
  EXPECT_EQ(by_item[c].worker, "w2");
  EXPECT_EQ(by_item[c].failure_reason, "listed in failed");
  EXPECT_NE(log_.str().find(a + " is listed in succeeded without a metrics line"), std::string::npos) << log_.str();
}

TEST_F(RedisWatchTrapsTest, RangesLostByARestartedServerAreNamedAndPushResumePutsBackTheUnfinishedOnes) {
  RedisWatch watch(queue_, store_, run_, log_);
  const std::string done = take("w0");
  metrics(done, "w0", "5");
  mark_succeeded(done);
  EXPECT_FALSE(watch.step(100 * s));
  take("w1");
  EXPECT_FALSE(watch.step(101 * s));
  EXPECT_EQ(log_.str().find("in no list"), std::string::npos) << log_.str();
  server_.stop();
  server_.start();  // no persistence: every list is gone
  std::ostringstream retries;
  EXPECT_FALSE(retry_while_redis_down(queue_, retries, {.initial = 10 * data::kMicrosPerMilli},
                                      [&] { return watch.step(102 * s); }));
  const std::string said = log_.str();
  EXPECT_NE(said.find("2 of the run's 3 ranges are in no list of the queue and did not succeed"), std::string::npos)
      << said;
  EXPECT_NE(said.find(" 32063/16320 16063/16320."), std::string::npos) << said;
  EXPECT_EQ(said.find(done + "."), std::string::npos) << said;
  EXPECT_NE(said.find("millrace push --redis " + server_.address() + " --store " + path() + " --resume 'live'"),
            std::string::npos)
      << said;
  EXPECT_FALSE(watch.step(103 * s));
  EXPECT_EQ(log_.str(), said) << "the same lost ranges are reported once";

  const auto resumed = run_cli("push --redis " + server_.address() + " --store " + path() + " --resume live");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("2 ranges of run 1 'live' pushed back to ranges"), std::string::npos) << resumed.output;
  EXPECT_EQ(redis_.strings({"LRANGE", "ranges", "0", "-1"}), (std::vector<std::string>{"32063/16320", "16063/16320"}));
  const auto again = run_cli("push --redis " + server_.address() + " --store " + path() + " --resume live");
  EXPECT_NE(again.output.find("0 ranges of run 1 'live' pushed back"), std::string::npos) << again.output;
  EXPECT_EQ(redis_.command({"LLEN", "ranges"}).integer, 2);
  for (int i = 0; i < 2; ++i) {
    const std::string range = take("w2");
    metrics(range, "w2", "3");
    mark_succeeded(range);
  }
  EXPECT_TRUE(watch.step(110 * s));
}

TEST_F(RedisWatchTrapsTest, AKeyOfAnotherTypeIsNamedWithTheTypeItHolds) {
  redis_.command({"DEL", "succeeded"});
  redis_.command({"SET", "succeeded", "oops"});
  try {
    queue_.snapshot();
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "redis " + server_.address());
    EXPECT_NE(e.problem().find("key 'succeeded' holds a string, not a list (WRONGTYPE)"), std::string::npos)
        << e.problem();
  }
  redis_.command({"DEL", "ranges"});
  redis_.command({"HSET", "ranges", "a", "b"});
  try {
    queue_.push({"63/64"}, false);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_NE(e.problem().find("key 'ranges' holds a hash, not a list"), std::string::npos) << e.problem();
  }
}

TEST_F(RedisWatchTrapsTest, AWorkerNameThatIsNotUtf8IsStoredAndServedWithReplacementCharacters) {
  RedisWatch watch(queue_, store_, run_, log_);
  WatchReport report(store_.items(run_), store_.attempts(run_), run_, "127.0.0.1");
  std::string documents;
  watch.set_step_observer([&](const WatchStep& step) {
    report.observe(step);
    documents = report.documents().status_json;  // json's dump throws on invalid UTF-8
  });
  const std::string bad = std::string("w\xff\xfe");
  const std::string range = take(bad);
  EXPECT_FALSE(watch.step(100 * s));
  metrics(range, bad, "7");
  mark_succeeded(range);
  EXPECT_FALSE(watch.step(101 * s));
  ASSERT_EQ(attempts().size(), 1u);
  EXPECT_EQ(attempts()[0].worker, "w\xEF\xBF\xBD\xEF\xBF\xBD");
  const nlohmann::json status = nlohmann::json::parse(documents);
  EXPECT_EQ(status["recent_attempts"][0]["worker"], "w\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_F(RedisWatchTrapsTest, ADurationStartingBefore1970IsRefusedAndNamed) {
  RedisWatch watch(queue_, store_, run_, log_);
  const data::Micros now = wall_clock_now();
  const std::string range = take("w0");
  metrics(range, "w0", "9000000000");
  mark_succeeded(range);
  EXPECT_FALSE(watch.step(now));
  EXPECT_NE(log_.str().find("duration 9000000000 s would start it before 1970"), std::string::npos) << log_.str();
  for (const data::Attempt& a : attempts()) EXPECT_GE(a.start, 0);
}

TEST(RedisPush, TakesWhatPartitionWritesItsOverlapLineIncluded) {
  testing::RedisServer server;
  TempDir dir;
  const std::string plan = dir.file("top.txt");
  const auto written = run_cli("partition --preset stellar-pubnet --tip 54326463 --start 54278463 --format end-count -o " + plan);
  ASSERT_EQ(written.exit_code, 0) << written.output;
  const auto pushed = run_cli("push --redis " + server.address() + " --plan " + plan);
  ASSERT_EQ(pushed.exit_code, 0) << pushed.output;
  RedisConnection redis(server.address());
  EXPECT_EQ(redis.strings({"LRANGE", "ranges", "0", "0"}), std::vector<std::string>{"54326463/16320"});
}

TEST(RedisAddress, ALoneCredentialIsThePasswordAndNeverShown) {
  const RedisConnection connection("S3cretPw2@127.0.0.1:1");
  EXPECT_EQ(connection.name(), "redis 127.0.0.1:1");
  EXPECT_EQ(data::redact("S3cretPw2"), "[redacted]");
  TempDir dir;
  const std::string store = dir.file("w.db");
  const auto refused = run_cli("watch --redis 'S3cretPw2@host' --store " + store + " --run r");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(refused.output.find("S3cretPw2"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("expected HOST:PORT"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(store)) << "the store was made before the address was checked";
  for (const char* command : {"watch", "push"}) {
    const auto help = run_cli(std::string(command) + " --help");
    EXPECT_EQ(help.output.find(data::kRedacted), std::string::npos) << help.output;
    EXPECT_NE(help.output.find("USER:PASSWORD@HOST:PORT"), std::string::npos) << help.output;
  }
}

}  // namespace
}  // namespace millrace::cluster_adapter
