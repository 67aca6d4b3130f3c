// Replies a Redis server should never send (a fake server sends them): every reply millrace
// reads is checked for its type and count before use, and one of the wrong shape is a
// data::Error naming the server and the command, which the watch retries with backoff as it
// retries a lost connection; never an out-of-range read of a short EXEC or a silent misreading.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>

#include "cluster_adapter/redis/redis_queue.h"
#include "cluster_adapter/redis/redis_watch.h"
#include "data/error.h"
#include "tests/cluster_adapter/redis/fake_redis.h"

namespace millrace::cluster_adapter {
namespace {

// A server answering MULTI and the queued commands as Redis does, and EXEC with `exec`.
testing::FakeRedis::Answer transaction_answering(std::string exec) {
  return [exec](const std::vector<std::string>& command) -> std::string {
    if (command[0] == "MULTI") return "+OK\r\n";
    if (command[0] == "EXEC") return exec;
    return "+QUEUED\r\n";
  };
}

std::string snapshot_error(const std::string& exec) {
  testing::FakeRedis server(transaction_answering(exec));
  RedisConnection connection(server.address());
  RedisQueue queue(connection, {});
  try {
    queue.snapshot();
  } catch (const data::Error& error) {
    EXPECT_EQ(error.input(), "redis " + server.address());
    return error.problem();
  }
  return "no error";
}

TEST(RedisRepliesTest, SnapshotRepliesOfTheWrongShapeAreErrorsNamingTheCommand) {
  const std::string empty = "*0\r\n";
  EXPECT_EQ(snapshot_error("*2\r\n" + empty + empty), "EXEC answered 2 replies for 6 commands");
  EXPECT_EQ(snapshot_error("*6\r\n:5\r\n" + empty + empty + empty + empty + empty),
            "LRANGE ranges answered an integer, not an array");
  EXPECT_EQ(snapshot_error("*6\r\n" + empty + "$3\r\nabc\r\n" + empty + empty + empty + empty),
            "LRANGE in_progress answered a string, not an array");
  EXPECT_EQ(snapshot_error("*6\r\n" + empty + empty + "*1\r\n*1\r\n$1\r\nx\r\n" + empty + empty + empty),
            "LRANGE succeeded answered an array holding an array, not only strings");
  EXPECT_EQ(snapshot_error("*6\r\n" + empty + empty + empty + "*1\r\n$-1\r\n" + empty + empty),
            "LRANGE failed answered an array holding nil, not only strings");
  EXPECT_EQ(snapshot_error("*6\r\n" + empty + empty + empty + empty + "+OK\r\n" + empty),
            "SMEMBERS metrics answered a status, not an array");
  EXPECT_EQ(snapshot_error("*6\r\n" + empty + empty + empty + empty + empty + "*1\r\n$5\r\nr/160\r\n"),
            "HGETALL job_owners answered an odd count");
  EXPECT_EQ(snapshot_error("*-1\r\n"), "transaction aborted");
}

TEST(RedisRepliesTest, HeartbeatsAndRequeueAndPushCheckTheirReplies) {
  // One range held by w1; MGET answers an integer, then an array of the wrong count.
  std::atomic<int> mgets{0};
  testing::FakeRedis server([&](const std::vector<std::string>& command) -> std::string {
    if (command[0] == "MULTI") return "+OK\r\n";
    if (command[0] == "EXEC" && command.size() == 1) {
      return "*6\r\n*0\r\n*1\r\n$5\r\nr/160\r\n*0\r\n*0\r\n*0\r\n*2\r\n$5\r\nr/160\r\n$2\r\nw1\r\n";
    }
    if (command[0] == "MGET") return ++mgets == 1 ? ":1\r\n" : "*2\r\n$-1\r\n$-1\r\n";
    if (command[0] == "EVAL") return "*0\r\n";
    if (command[0] == "LLEN") return "+QUEUED\r\n";
    return "+QUEUED\r\n";
  });
  RedisConnection connection(server.address());
  RedisQueue queue(connection, {});
  auto problem = [&](const std::function<void()>& call) -> std::string {
    try {
      call();
    } catch (const data::Error& error) {
      return error.problem();
    }
    return "no error";
  };
  EXPECT_EQ(problem([&] { queue.snapshot(); }), "MGET answered an integer, not an array");
  EXPECT_EQ(problem([&] { queue.snapshot(); }), "MGET answered 2 values for 1 keys");
  EXPECT_EQ(problem([&] { queue.requeue("r/160"); }), "EVAL (requeue) answered an array, not an integer");
  // EXEC of the two LLENs answers the snapshot's 6 replies: a count mismatch, not a misreading.
  EXPECT_EQ(problem([&] { queue.push({"r/160"}, false); }), "EXEC answered 6 replies for 2 commands");
}

// The watch's retry loop takes a malformed reply as it takes a lost connection: logged, retried
// with backoff, and the loop goes on once the replies are sane again.
TEST(RedisRepliesTest, MalformedRepliesAreRetriedWithBackoffUntilTheyAreSane) {
  std::atomic<int> execs{0};
  testing::FakeRedis server([&](const std::vector<std::string>& command) -> std::string {
    if (command[0] == "MULTI") return "+OK\r\n";
    if (command[0] != "EXEC") return "+QUEUED\r\n";
    return ++execs <= 3 ? "*6\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n:6\r\n"
                        : "*6\r\n*1\r\n$5\r\nr/160\r\n*0\r\n*0\r\n*0\r\n*0\r\n*0\r\n";
  });
  RedisConnection connection(server.address());
  RedisQueue queue(connection, {});
  std::ostringstream log;
  std::vector<std::string> ranges = retry_while_redis_down(queue, log, {.initial = 1 * data::kMicrosPerMilli},
                                                           [&] { return queue.snapshot().ranges; });
  EXPECT_EQ(ranges, std::vector<std::string>{"r/160"});
  EXPECT_EQ(execs, 4);
  std::string text = log.str();
  std::size_t retries = 0;
  for (std::size_t at = text.find("LRANGE ranges answered an integer, not an array; retrying in");
       at != std::string::npos; at = text.find("LRANGE ranges answered an integer", at + 1)) {
    ++retries;
  }
  EXPECT_EQ(retries, 3u) << text;
}

}  // namespace
}  // namespace millrace::cluster_adapter
