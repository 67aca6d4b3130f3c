// The Redis work-queue adapter against a real redis-server: pushing a plan, recording finished
// tries once (also across a restarted watch), re-queueing ranges of workers that stopped
// heartbeating, riding out Redis being down, and the status `watch --status-port` serves.
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "cluster_adapter/redis/redis_queue.h"
#include "cluster_adapter/redis/redis_watch.h"
#include "cluster_adapter/redis/watch_report.h"
#include "data/importers/stellar_trace.h"
#include "tests/cli/cli_runner.h"
#include "tests/cluster_adapter/redis/redis_server.h"
#include "tests/data/store_fixture.h"

namespace millrace::cluster_adapter {
namespace {

using data::testing::TempDir;
using test_support::run_cli;

class RedisWatchTest : public ::testing::Test {
 protected:
  RedisWatchTest()
      : redis_(server_.address()), queue_(redis_, {}), store_(data::TraceStore::open(path())) {
    std::vector<data::WorkItem> items;
    for (const char* id : {"48063/16320", "32063/16320", "16063/16320"}) {
      const data::Range r{std::stoll(id) - 16320 + 1, 16320};
      items.push_back(data::importers::end_count_item(r));
    }
    data::Run run;
    run.name = "live";
    run.source = data::RunSource::kReal;
    run_ = store_.add_run(run, items, {});
    queue_.push({"48063/16320", "32063/16320", "16063/16320"}, false);
  }

  // What a worker does: take the next range and say it holds it.
  std::string take(const std::string& worker, bool heartbeat) {
    const std::string range = redis_.command({"LMOVE", "ranges", "in_progress", "LEFT", "LEFT"}).text;
    redis_.command({"HSET", "job_owners", range, worker});
    if (heartbeat) redis_.command({"SET", "heartbeat:" + worker, "1"});
    return range;
  }
  void finish(const std::string& range, const std::string& worker, const std::string& seconds) {
    redis_.transaction({{"LPUSH", "succeeded", range},
                        {"LREM", "in_progress", "-1", range},
                        {"SADD", "metrics", range + "|" + worker + "|1000|" + seconds + "s"},
                        {"HDEL", "job_owners", range}});
  }

  void mark_succeeded(const std::string& range) {
    redis_.transaction({{"LPUSH", "succeeded", range}, {"LREM", "in_progress", "-1", range}, {"HDEL", "job_owners", range}});
  }
  void metrics(const std::string& range, const std::string& worker, const std::string& seconds) {
    redis_.command({"SADD", "metrics", range + "|" + worker + "|1000|" + seconds + "s"});
  }
  std::string path() const { return dir_.file("t.db"); }
  std::vector<data::Attempt> attempts() const { return store_.attempts(run_); }

  TempDir dir_;
  testing::RedisServer server_;
  RedisConnection redis_;
  RedisQueue queue_;
  data::TraceStore store_;
  std::int64_t run_ = 0;
  std::ostringstream log_;
};

TEST_F(RedisWatchTest, PushKeepsThePlanOrderAndRefusesAQueueThatHoldsRanges) {
  EXPECT_EQ(redis_.strings({"LRANGE", "ranges", "0", "-1"}),
            (std::vector<std::string>{"48063/16320", "32063/16320", "16063/16320"}));
  EXPECT_THROW(queue_.push({"63/64"}, false), data::Error);
  queue_.push({"63/64"}, true);
  EXPECT_EQ(redis_.command({"LLEN", "ranges"}).integer, 4);
}

TEST_F(RedisWatchTest, EachMetricsLineIsRecordedOnceAlsoByARestartedWatch) {
  RedisWatch watch(queue_, store_, run_, log_);
  const std::string r = take("w0", true);
  finish(r, "w0", "120");
  EXPECT_FALSE(watch.step(1000 * data::kMicrosPerSecond));
  EXPECT_FALSE(watch.step(1001 * data::kMicrosPerSecond));
  ASSERT_EQ(store_.attempts(run_).size(), 1u);
  const data::Attempt a = store_.attempts(run_)[0];
  EXPECT_EQ(a.item_id, "48063/16320");
  EXPECT_EQ(a.duration(), 120 * data::kMicrosPerSecond);
  EXPECT_EQ(a.end, 1000 * data::kMicrosPerSecond);
  EXPECT_EQ(a.work_time, data::Micros{1'000'000});

  RedisWatch restarted(queue_, store_, run_, log_);
  EXPECT_FALSE(restarted.step(1002 * data::kMicrosPerSecond));
  EXPECT_EQ(store_.attempts(run_).size(), 1u);
  for (int i = 0; i < 2; ++i) {
    const std::string next = take("w1", false);
    finish(next, "w1", "60");
  }
  EXPECT_TRUE(restarted.step(1003 * data::kMicrosPerSecond));
  EXPECT_EQ(store_.attempts(run_).size(), 3u);
}

TEST_F(RedisWatchTest, ARangeWhoseWorkerStoppedHeartbeatingIsRequeuedFirstAndRecordedAsFailed) {
  RedisWatch watch(queue_, store_, run_, log_);
  const std::string lost = take("w0", true);
  const std::string quiet = take("w1", false);  // never heartbeats: never re-queued
  EXPECT_FALSE(watch.step(10 * data::kMicrosPerSecond));
  redis_.command({"DEL", "heartbeat:w0"});
  EXPECT_FALSE(watch.step(20 * data::kMicrosPerSecond));
  EXPECT_EQ(redis_.strings({"LRANGE", "ranges", "0", "0"}), std::vector<std::string>{lost});
  EXPECT_EQ(redis_.strings({"LRANGE", "in_progress", "0", "-1"}), std::vector<std::string>{quiet});
  ASSERT_EQ(store_.attempts(run_).size(), 1u);
  const data::Attempt a = store_.attempts(run_)[0];
  EXPECT_EQ(a.worker, "w0");
  EXPECT_EQ(a.outcome, data::Outcome::kFailed);
  EXPECT_EQ(a.start, 10 * data::kMicrosPerSecond);
  EXPECT_EQ(a.failure_reason, kHeartbeatLost);
  EXPECT_EQ(watch.requeued(), 1u);
  EXPECT_NE(log_.str().find("w0 stopped heartbeating"), std::string::npos);
}

TEST_F(RedisWatchTest, ARestartedWatchRequeuesTheRangeOfAWorkerThatStoppedMeanwhileAndKeepsHealthyOnes) {
  constexpr data::Micros s = data::kMicrosPerSecond;
  std::string lost, healthy;
  {
    RedisWatch watch(queue_, store_, run_, log_);
    lost = take("w0", true);
    healthy = take("w1", true);
    EXPECT_FALSE(watch.step(10 * s));
  }
  redis_.command({"DEL", "heartbeat:w0"});  // w0 stops while no watch runs
  RedisWatch restarted(queue_, store_, run_, log_);
  EXPECT_FALSE(restarted.step(30 * s));
  EXPECT_EQ(redis_.strings({"LRANGE", "ranges", "0", "0"}), std::vector<std::string>{lost});
  EXPECT_EQ(redis_.strings({"LRANGE", "in_progress", "0", "-1"}), std::vector<std::string>{healthy});
  ASSERT_EQ(store_.attempts(run_).size(), 1u);
  const data::Attempt a = store_.attempts(run_)[0];
  EXPECT_EQ(a.item_id, lost);
  EXPECT_EQ(a.worker, "w0");
  EXPECT_EQ(a.start, 10 * s);  // taken before the restart
  EXPECT_EQ(a.end, 30 * s);

  // The healthy range, held across two restarts, is dated from when it was taken too.
  redis_.command({"DEL", "heartbeat:w1"});
  RedisWatch again(queue_, store_, run_, log_);
  EXPECT_FALSE(again.step(40 * s));
  EXPECT_TRUE(redis_.strings({"LRANGE", "in_progress", "0", "-1"}).empty());
  ASSERT_EQ(store_.attempts(run_).size(), 2u);
  for (const data::Attempt& b : store_.attempts(run_)) {
    EXPECT_EQ(b.start, 10 * s) << b.worker;
    EXPECT_EQ(b.failure_reason, kHeartbeatLost);
  }
  EXPECT_NE(log_.str().find("w1 stopped heartbeating (last seen 10 s ago)"), std::string::npos) << log_.str();
  EXPECT_EQ(restarted.requeued() + again.requeued(), 2u);
}

TEST_F(RedisWatchTest, RedisDownIsReportedAndRetriedAndLosesNothingRecorded) {
  RedisWatch watch(queue_, store_, run_, log_);
  finish(take("w0", true), "w0", "30");
  EXPECT_FALSE(watch.step(1 * data::kMicrosPerSecond));
  const auto before = data::testing::row_counts(store_);
  server_.stop();
  try {
    watch.step(2 * data::kMicrosPerSecond);
    FAIL() << "no error with Redis down";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "redis " + server_.address());
  }
  EXPECT_EQ(data::testing::row_counts(store_), before);
  // A server back on the same port (empty: it kept nothing) is picked up by the retry loop.
  std::thread restart([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    server_.start();
  });
  const bool over = retry_while_redis_down(queue_, log_, {.initial = 50 * data::kMicrosPerMilli},
                                           [&] { return watch.step(3 * data::kMicrosPerSecond); });
  restart.join();
  EXPECT_FALSE(over);  // two planned ranges never succeeded
  EXPECT_NE(log_.str().find("retrying in 50 ms"), std::string::npos);
  EXPECT_EQ(data::testing::row_counts(store_), before);
}

// What the watch sees is served as a real run's /status and /metrics: in progress ranges as their
// workers' running attempts, recorded tries as finished ones, the failed list as failures.
TEST_F(RedisWatchTest, TheStatusReportShowsTheQueueAsARealRunsStatusDoes) {
  RedisWatch watch(queue_, store_, run_, log_);
  WatchReport report(store_.items(run_), store_.attempts(run_), store_.run(run_), "127.0.0.1");
  watch.set_step_observer([&](const WatchStep& step) { report.observe(step); });
  const std::string done = take("w0", true);
  const std::string failing = take("w1", true);
  finish(done, "w0", "120");
  EXPECT_FALSE(watch.step(1000 * data::kMicrosPerSecond));
  nlohmann::json status = nlohmann::json::parse(report.documents().status_json);
  EXPECT_EQ(status["progress"], nlohmann::json({{"total", 3}, {"done", 1}, {"succeeded", 1}, {"failed", 0},
                                                {"in_flight", 1}, {"remaining", 2}}));
  ASSERT_EQ(status["recent_attempts"].size(), 2u);
  EXPECT_EQ(status["recent_attempts"][1]["worker"], "w1");
  EXPECT_EQ(status["recent_attempts"][1]["attempts"][0]["item"], failing);
  EXPECT_EQ(status["recent_attempts"][1]["attempts"][0]["outcome"], "running");

  redis_.transaction({{"LPUSH", "failed", failing + "|w1"},
                      {"LREM", "in_progress", "-1", failing},
                      {"SADD", "metrics", failing + "|w1|500|30s"},
                      {"HDEL", "job_owners", failing}});
  EXPECT_FALSE(watch.step(1001 * data::kMicrosPerSecond));
  const StatusDocuments documents = report.documents();
  status = nlohmann::json::parse(documents.status_json);
  EXPECT_EQ(status["progress"], nlohmann::json({{"total", 3}, {"done", 2}, {"succeeded", 1}, {"failed", 1},
                                                {"in_flight", 0}, {"remaining", 1}}));
  ASSERT_EQ(status["jobs_failed"].size(), 1u);
  EXPECT_EQ(status["jobs_failed"][0]["item"], failing);
  // Its range as every output names one, FIRST-LAST, from the queue's END/COUNT entry.
  const long long end = std::stoll(failing.substr(0, failing.find('/')));
  const long long count = std::stoll(failing.substr(failing.find('/') + 1));
  EXPECT_EQ(status["jobs_failed"][0]["range"], std::to_string(end - count + 1) + "-" + std::to_string(end));
  EXPECT_EQ(status["jobs_failed"][0]["worker"], "w1");
  EXPECT_EQ(status["jobs_failed"][0]["reason"], "listed in failed");
  EXPECT_EQ(status["recent_attempts"][0]["attempts"][0],
            nlohmann::json({{"item", done}, {"attempt", 1}, {"start_us", 880 * data::kMicrosPerSecond},
                            {"end_us", 1000 * data::kMicrosPerSecond}, {"outcome", "succeeded"}, {"exit_code", 0},
                            {"reason", ""}}));
  ASSERT_EQ(status["recent_attempts"][1]["attempts"].size(), 1u);
  EXPECT_EQ(status["recent_attempts"][1]["attempts"][0]["outcome"], "failed");
  EXPECT_EQ(status["run"]["cluster"], "redis queue");
  EXPECT_NE(documents.metrics_text.find("\nmillrace_items_failed 1\n"), std::string::npos) << documents.metrics_text;
  EXPECT_NE(documents.metrics_text.find("millrace_worker_busy_seconds_total{worker=\"w0\"} 120\n"), std::string::npos);
  EXPECT_NE(documents.metrics_text.find("\nmillrace_attempt_duration_seconds_count 2\n"), std::string::npos);

  // A range let go without an end reported (put back by hand) is no longer shown running.
  const std::string dropped = take("w2", false);
  EXPECT_FALSE(watch.step(1002 * data::kMicrosPerSecond));
  EXPECT_EQ(nlohmann::json::parse(report.documents().status_json)["recent_attempts"].size(), 3u);
  redis_.transaction({{"LREM", "in_progress", "-1", dropped}, {"LPUSH", "ranges", dropped}, {"HDEL", "job_owners", dropped}});
  EXPECT_FALSE(watch.step(1003 * data::kMicrosPerSecond));
  EXPECT_EQ(nlohmann::json::parse(report.documents().status_json)["recent_attempts"].size(), 2u);
}

// The traps found in the watch (issues 29 and 31): a metrics line written before the range is
// marked, ranges marked without one, a server restarted empty, a key of another type, worker
// names that are not UTF-8, durations that would start before 1970.
constexpr data::Micros s = data::kMicrosPerSecond;

TEST_F(RedisWatchTest, AMetricsLineWrittenBeforeTheRangeIsMarkedWaitsForTheListsAndTheRunEnds) {
  RedisWatch watch(queue_, store_, run_, log_);
  for (int i = 0; i < 3; ++i) {
    const std::string range = take("w0", false);
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

TEST_F(RedisWatchTest, RangesListedWithoutAMetricsLineAreRecordedAsTheListsSayAndTheRunEnds) {
  RedisWatch watch(queue_, store_, run_, log_);
  const std::string a = take("w0", false), b = take("w1", false), c = take("w2", false);
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

TEST_F(RedisWatchTest, RangesLostByARestartedServerAreNamedAndPushResumePutsBackTheUnfinishedOnes) {
  RedisWatch watch(queue_, store_, run_, log_);
  const std::string done = take("w0", false);
  metrics(done, "w0", "5");
  mark_succeeded(done);
  EXPECT_FALSE(watch.step(100 * s));
  take("w1", false);
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
    const std::string range = take("w2", false);
    metrics(range, "w2", "3");
    mark_succeeded(range);
  }
  EXPECT_TRUE(watch.step(110 * s));
}

TEST_F(RedisWatchTest, AKeyOfAnotherTypeIsNamedWithTheTypeItHolds) {
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

TEST_F(RedisWatchTest, AWorkerNameThatIsNotUtf8IsStoredAndServedWithReplacementCharacters) {
  RedisWatch watch(queue_, store_, run_, log_);
  WatchReport report(store_.items(run_), store_.attempts(run_), store_.run(run_), "127.0.0.1");
  std::string documents;
  watch.set_step_observer([&](const WatchStep& step) {
    report.observe(step);
    documents = report.documents().status_json;  // json's dump throws on invalid UTF-8
  });
  const std::string bad = std::string("w\xff\xfe");
  const std::string range = take(bad, false);
  EXPECT_FALSE(watch.step(100 * s));
  metrics(range, bad, "7");
  mark_succeeded(range);
  EXPECT_FALSE(watch.step(101 * s));
  ASSERT_EQ(attempts().size(), 1u);
  EXPECT_EQ(attempts()[0].worker, "w\xEF\xBF\xBD\xEF\xBF\xBD");
  const nlohmann::json status = nlohmann::json::parse(documents);
  EXPECT_EQ(status["recent_attempts"][0]["worker"], "w\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_F(RedisWatchTest, ADurationStartingBefore1970IsRefusedAndNamed) {
  RedisWatch watch(queue_, store_, run_, log_);
  const data::Micros now = wall_clock_now();
  const std::string range = take("w0", false);
  metrics(range, "w0", "9000000000");
  mark_succeeded(range);
  EXPECT_FALSE(watch.step(now));
  EXPECT_NE(log_.str().find("duration 9000000000 s would start it before 1970"), std::string::npos) << log_.str();
  for (const data::Attempt& a : attempts()) EXPECT_GE(a.start, 0);
}

}  // namespace
}  // namespace millrace::cluster_adapter
