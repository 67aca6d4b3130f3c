// A Redis server behind a password: the address carries it ([redis://][[USER]:PASSWORD@]
// HOST:PORT), each connection starts with AUTH, and the password reaches no output, even when
// the server (or a proxy before it) echoes it in an error: not the watch's retry log, not the
// final error line, not the store.
#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_adapter/redis/redis_connection.h"
#include "data/error.h"
#include "tests/cli/cli_runner.h"
#include "tests/data/store_fixture.h"
#include "tests/cluster_adapter/redis/fake_redis.h"

namespace millrace::cluster_adapter {
namespace {

const std::string kPassword = "s3cret-Pw1";

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(RedisCredentials, EachConnectionStartsWithAuthAndItsNameHoldsNoPassword) {
  std::mutex mutex;
  std::vector<std::vector<std::string>> commands;
  testing::FakeRedis server([&](const std::vector<std::string>& command) -> std::string {
    std::lock_guard lock(mutex);
    commands.push_back(command);
    return command[0] == "AUTH" ? "+OK\r\n" : "+PONG\r\n";
  });
  RedisConnection connection("redis://ops:" + kPassword + "@" + server.address());
  EXPECT_EQ(connection.name(), "redis " + server.address());
  connection.command({"PING"});
  RedisConnection default_user(":" + kPassword + "@" + server.address());
  default_user.command({"PING"});
  std::lock_guard lock(mutex);
  const std::vector<std::vector<std::string>> expected = {
      {"AUTH", "ops", kPassword}, {"PING"}, {"AUTH", kPassword}, {"PING"}};
  EXPECT_EQ(commands, expected);
}

TEST(RedisCredentials, ARefusedAuthIsAnErrorOfItsOwnNotALostConnection) {
  testing::FakeRedis server([](const std::vector<std::string>&) -> std::string { return "-WRONGPASS invalid\r\n"; });
  RedisConnection connection(":" + kPassword + "@" + server.address());
  try {
    connection.command({"PING"});
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "redis " + server.address() + " AUTH");
    EXPECT_EQ(e.problem(), "refused: WRONGPASS invalid");
  }
}

TEST(RedisCredentials, AnAuthErrorEchoingThePasswordNeverReachesTheOutput) {
  testing::FakeRedis server([](const std::vector<std::string>& command) -> std::string {
    return "-ERR proxy: AUTH " + command.back() + " rejected\r\n";  // echoes the password
  });
  data::testing::TempDir dir;
  for (const std::string& address :
       {"redis://:" + kPassword + "@" + server.address(), "ops:" + kPassword + "@" + server.address()}) {
    const auto result = test_support::run_cli("watch --redis '" + address + "' --store " + dir.file("s.db") + " --run r");
    EXPECT_NE(result.exit_code, 0);
    EXPECT_NE(result.output.find("AUTH: refused: ERR proxy: AUTH [redacted] rejected"), std::string::npos)
        << result.output;
    EXPECT_EQ(result.output.find(kPassword), std::string::npos) << result.output;
  }
}

TEST(RedisCredentials, TheWatchRetryLogOfAnErrorEchoingThePasswordIsRedacted) {
  testing::FakeRedis server([](const std::vector<std::string>& command) -> std::string {
    if (command[0] == "AUTH") return "+OK\r\n";
    return "-ERR proxy echo: client sent AUTH " + kPassword + " then " + command[0] + "\r\n";
  });
  data::testing::TempDir dir;
  // The watch retries a failing server for ever: `timeout` ends it after a few retries.
  const auto result = test_support::run_cli(
      "watch --redis redis://watcher:" + kPassword + "@" + server.address() + " --store " + dir.file("s.db") + " --run r",
      "timeout 4 ");
  EXPECT_NE(result.output.find("millrace: watch: redis " + server.address() + ": ERR proxy echo: client sent AUTH [redacted]"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find(kPassword), std::string::npos) << result.output;
  for (const char* suffix : {"", "-wal"}) EXPECT_EQ(file_bytes(dir.file("s.db") + suffix).find(kPassword), std::string::npos);
}

}  // namespace
}  // namespace millrace::cluster_adapter
