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
#include "tests/cluster_adapter/redis/redis_server.h"
#include "tests/data/store_fixture.h"

namespace millrace::cluster_adapter {
namespace {

using data::testing::TempDir;

class RedisWatchTest : public ::testing::Test {
 protected:
  RedisWatchTest()
      : redis_(server_.address()), queue_(redis_, {}), store_(data::TraceStore::open(dir_.file("t.db"))) {
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
  WatchReport report(store_.items(run_), store_.attempts(run_), run_, "127.0.0.1");
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

}  // namespace
}  // namespace millrace::cluster_adapter
