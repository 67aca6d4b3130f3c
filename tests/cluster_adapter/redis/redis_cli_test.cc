// push and watch on the command line, against a real redis-server: push takes what partition
// writes, and a password given without a user is the password, never shown.
#include <filesystem>

#include <gtest/gtest.h>

#include "cluster_adapter/redis/redis_connection.h"
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

}  // namespace
}  // namespace millrace::cluster_adapter
