// push and watch on the command line, against a real redis-server: push takes what partition
// writes, a password given without a user is the password, never shown, and a plan pushed with a
// model ends its watch with the prediction against what happened.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_adapter/redis/redis_connection.h"
#include "data/cost_model.h"
#include "data/readable_duration.h"
#include "data/trace_store.h"
#include "data/redaction.h"
#include "data/trace_store.h"
#include "tests/cli/cli_runner.h"
#include "tests/cluster_adapter/redis/redis_server.h"
#include "tests/data/store_fixture.h"

namespace millrace::cluster_adapter {
namespace {

using data::testing::TempDir;
using test_support::run_cli;

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

TEST(RedisPush, ARunNameTheStoreHasIsRefusedBeforeAnythingIsPushed) {
  testing::RedisServer server;
  TempDir dir;
  const std::string plan = dir.file("plan.txt");
  data::testing::write_file(plan, "199/100\n99/100\n");
  const std::string store = dir.file("s.db");
  const std::string push = "push --redis " + server.address() + " --plan " + plan + " --store " + store + " --run nightly";
  ASSERT_EQ(run_cli(push).exit_code, 0);
  const auto again = run_cli(push + " --append");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.output, "millrace: " + store + ": a run named 'nightly' is already in this store (run 1): give the new "
                          "run another --run\n");
  RedisConnection redis(server.address());
  EXPECT_EQ(redis.strings({"LRANGE", "ranges", "0", "-1"}), (std::vector<std::string>{"199/100", "99/100"}));
  EXPECT_EQ(data::TraceStore::open(store).runs().size(), 1u);
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

// push --model --workers keeps each range's prediction, the model's noise and the makespan its
// plan predicts on that pool; watch ends with predicted vs actual, as `run` does.
TEST(RedisWatch, APlanPushedWithAModelEndsWithItsPredictionAgainstWhatHappened) {
  testing::RedisServer server;
  TempDir dir;
  const std::string model = dir.file("model.json");
  data::CostModel cost({{{0, 1000}, 0, 1e3}}, "ledgers", "synthetic");  // 1 ms a ledger: 100 ms a range
  cost.set_noise(data::DurationNoise({{0, {0.5, 1.0, 2.0}}}));
  cost.save(model);
  const std::string plan = dir.file("plan.txt");
  std::ofstream(plan) << "399/100\n299/100\n199/100\n99/100\n";
  const std::string store = dir.file("w.db");
  const auto refused = run_cli("push --redis " + server.address() + " --plan " + plan + " --workers 2");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("--workers: predicts the run's makespan: give the cost model (--model)"),
            std::string::npos)
      << refused.output;
  const auto pushed = run_cli("push --redis " + server.address() + " --plan " + plan + " --model " + model +
                              " --workers 2 --store " + store + " --run live");
  ASSERT_EQ(pushed.exit_code, 0) << pushed.output;

  // Two workers take the four ranges: 1 s each where 100 ms was predicted, so 2 s for 200 ms.
  RedisConnection redis(server.address());
  int taken = 0;
  for (const char* range : {"399/100", "299/100", "199/100", "99/100"}) {
    const std::string worker = "w" + std::to_string(taken++ % 2);
    redis.transaction({{"LREM", "ranges", "0", range},
                       {"SADD", "metrics", std::string(range) + "|" + worker + "|900|1s"},
                       {"LPUSH", "succeeded", range}});
  }
  const auto watched = run_cli("watch --redis " + server.address() + " --store " + store + " --run live --poll 10ms");
  ASSERT_EQ(watched.exit_code, 0) << watched.output;
  const nlohmann::json kept = nlohmann::json::parse(data::TraceStore::open(store).run(1).parameters);
  EXPECT_TRUE(kept.contains("noise")) << kept.dump();
  const nlohmann::json& predicted = kept.at("predicted");
  EXPECT_EQ(predicted.at("replicas"), 20) << kept.dump();
  // Two workers, four ranges of 100 ms times the noise's factors (0.5 to 2): 100 ms to 400 ms.
  const data::Micros p50 = predicted.at("makespan_p50_us").get<data::Micros>();
  EXPECT_GE(p50, 100'000);
  EXPECT_LE(p50, 400'000);
  EXPECT_NE(watched.output.find("its plan simulated at the start (20 replicas) predicted p50 " +
                                data::readable_duration(p50) + " (p10 "),
            std::string::npos)
      << watched.output;
  EXPECT_NE(watched.output.find("    ranges:       4 with a prediction; actual/predicted p10 10.00, p50 10.00, p90 "
                                "10.00; all together 10.00x"),
            std::string::npos)
      << watched.output;
  EXPECT_NE(watched.output.find("    calibration:  0 of 4 (0%) inside their own p10-p90 band"), std::string::npos)
      << watched.output;

  const auto again = run_cli("watch --redis " + server.address() + " --store " + store +
                             " --run live --poll 10ms --model " + model);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.output.find("run 'live' is already recorded (by push): its predictions are the ones it was "
                              "recorded with"),
            std::string::npos)
      << again.output;
}

}  // namespace
}  // namespace millrace::cluster_adapter
