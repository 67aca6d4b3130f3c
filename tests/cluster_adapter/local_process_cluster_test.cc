#include "cluster_adapter/local_process_cluster.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_adapter/wall_clock.h"
#include "data/error.h"
#include "tests/support/recording_listener.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

using test_support::RecordedEvent;
using test_support::RecordingListener;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// True when `pid` no longer runs (gone, or a zombie waiting for its new parent to reap it).
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

class LocalProcessClusterTest : public ::testing::Test {
 protected:
  // Runs `command` as one attempt under a 100 ms timeout and returns its failed event (or null).
  const RecordedEvent* run_past_timeout(const std::string& command) {
    LocalProcessOptions o = options(command);
    o.timeout = 100 * data::kMicrosPerMilli;
    LocalProcessCluster cluster(o, clock);
    cluster.set_listener(&listener);
    cluster.submit(submission(1, item("a")));
    poll_until_finished(cluster, 1);
    return listener.find("failed", 1);
  }

  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("millrace-local-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  LocalProcessOptions options(const std::string& command, int concurrency = 1) {
    LocalProcessOptions o;
    o.command = command;
    o.concurrency = concurrency;
    o.log_dir = (dir / "logs").string();
    o.kill_grace = 100 * data::kMicrosPerMilli;
    return o;
  }

  data::WorkItem& item(const std::string& id, std::string payload = "") {
    auto& it = items.emplace_back();
    it.id = id;
    it.range = data::Range{100, 50};
    it.payload = std::move(payload);
    return it;
  }

  scheduler::Submission submission(scheduler::AttemptHandle handle, const data::WorkItem& it, int attempt = 1) {
    return scheduler::Submission{handle, &it, attempt, std::nullopt};
  }

  // Polls (each poll may block up to an hour: only events wake it) until `n` attempts finished.
  void poll_until_finished(LocalProcessCluster& cluster, int n) {
    for (int i = 0; i < 1000 && listener.finished() < n; ++i) cluster.poll(data::kMicrosPerHour);
    ASSERT_EQ(listener.finished(), n);
  }

  fs::path dir;
  std::deque<data::WorkItem> items;
  WallClock clock;
  RecordingListener listener;
};

TEST_F(LocalProcessClusterTest, ExitZeroReportsStartedThenSucceededWithWallTime) {
  LocalProcessCluster cluster(options("exit 0"), clock);
  cluster.set_listener(&listener);
  cluster.submit(submission(1, item("a")));
  poll_until_finished(cluster, 1);
  ASSERT_EQ(listener.events.size(), 2u);
  EXPECT_EQ(listener.events[0].kind, "started");
  EXPECT_EQ(listener.events[0].event.worker, "local-0");
  EXPECT_EQ(listener.events[1].kind, "succeeded");
  EXPECT_EQ(listener.events[1].event.exit_code, 0);
  EXPECT_EQ(listener.events[1].event.worker, "local-0");
  EXPECT_GE(listener.events[1].event.at, listener.events[0].event.at);
  EXPECT_EQ(cluster.running(), 0);
}

TEST_F(LocalProcessClusterTest, NonZeroExitReportsFailedWithReasonExitAndTheCode) {
  LocalProcessCluster cluster(options("sh -c 'exit 3'"), clock);
  cluster.set_listener(&listener);
  cluster.submit(submission(7, item("a")));
  poll_until_finished(cluster, 1);
  const RecordedEvent* failed = listener.find("failed", 7);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.reason, "exit");
  EXPECT_EQ(failed->event.exit_code, 3);
}

TEST_F(LocalProcessClusterTest, TimeoutTerminatesTheAttemptAndReportsTimeout) {
  const RecordedEvent* failed = run_past_timeout("sleep 30");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.reason, "timeout");
  EXPECT_EQ(failed->event.exit_code, 128 + SIGTERM);
}

TEST_F(LocalProcessClusterTest, TimeoutEscalatesToSigkillWhenTheGroupIgnoresSigterm) {
  const RecordedEvent* failed = run_past_timeout("trap '' TERM; sleep 30");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.reason, "timeout");
  EXPECT_EQ(failed->event.exit_code, 128 + SIGKILL);
}

TEST_F(LocalProcessClusterTest, CancelKillsTheWholeProcessGroupAndReportsCancelled) {
  std::string pid_file = (dir / "grandchild.pid").string();
  LocalProcessCluster cluster(options("sleep 300 & echo $! > {payload}.tmp && mv {payload}.tmp {payload}; wait"),
                              clock);
  cluster.set_listener(&listener);
  cluster.submit(submission(1, item("a", pid_file)));
  for (int i = 0; i < 1000 && !fs::exists(pid_file); ++i) cluster.poll(10 * data::kMicrosPerMilli);
  ASSERT_TRUE(fs::exists(pid_file));
  pid_t grandchild = std::stoi(read_file(pid_file));
  ASSERT_FALSE(process_gone(grandchild));

  cluster.cancel(1);
  poll_until_finished(cluster, 1);
  const RecordedEvent* failed = listener.find("failed", 1);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.reason, "cancelled");
  for (int i = 0; i < 1000 && !process_gone(grandchild); ++i) usleep(10'000);
  EXPECT_TRUE(process_gone(grandchild));
}

TEST_F(LocalProcessClusterTest, CancellingAnUnknownOrFinishedAttemptDoesNothing) {
  LocalProcessCluster cluster(options("exit 0"), clock);
  cluster.set_listener(&listener);
  cluster.cancel(42);
  cluster.submit(submission(1, item("a")));
  poll_until_finished(cluster, 1);
  cluster.cancel(1);
  cluster.poll(0);
  EXPECT_EQ(listener.events.size(), 2u);
  EXPECT_NE(listener.find("succeeded", 1), nullptr);
}

TEST_F(LocalProcessClusterTest, SubmissionBeyondConcurrencyIsAnErrorAndFreedSlotsAreReused) {
  LocalProcessCluster cluster(options("sleep 30", 2), clock);
  cluster.set_listener(&listener);
  EXPECT_EQ(cluster.capacity(), 2);
  cluster.submit(submission(1, item("a")));
  cluster.submit(submission(2, item("b")));
  EXPECT_THROW(cluster.submit(submission(3, item("c"))), data::Error);
  cluster.poll(0);
  ASSERT_NE(listener.find("started", 1), nullptr);
  ASSERT_NE(listener.find("started", 2), nullptr);
  EXPECT_EQ(listener.find("started", 1)->event.worker, "local-0");
  EXPECT_EQ(listener.find("started", 2)->event.worker, "local-1");
  EXPECT_EQ(listener.find("started", 3), nullptr);

  cluster.cancel(1);
  poll_until_finished(cluster, 1);
  cluster.submit(submission(3, item("c")));
  cluster.poll(0);
  ASSERT_NE(listener.find("started", 3), nullptr);
  EXPECT_EQ(listener.find("started", 3)->event.worker, "local-0");
  EXPECT_EQ(cluster.running(), 2);
}

TEST_F(LocalProcessClusterTest, CapturesStdoutAndStderrPerAttempt) {
  LocalProcessCluster cluster(options("echo out-{id}-{attempt}; echo err-{id} >&2; exit {attempt}"), clock);
  cluster.set_listener(&listener);
  cluster.submit(submission(1, item("x/1"), 2));
  poll_until_finished(cluster, 1);
  EXPECT_EQ(read_file(cluster.log_path("x/1", 2, "out")), "out-x/1-2\n");
  EXPECT_EQ(read_file(cluster.log_path("x/1", 2, "err")), "err-x/1\n");
  EXPECT_EQ(cluster.log_path("x/1", 2, "out"), (dir / "logs" / "x_1.2.out").string());
  EXPECT_EQ(listener.find("failed", 1)->event.exit_code, 2);
}

TEST_F(LocalProcessClusterTest, SubstitutesPlaceholdersAsSafelyQuotedWords) {
  LocalProcessCluster cluster(options("printf '%s\\n' {first} {count} {last} {end} {payload} {worker}"), clock);
  cluster.set_listener(&listener);
  cluster.submit(submission(1, item("a", "two words'; echo pwned $(id)")));
  poll_until_finished(cluster, 1);
  EXPECT_EQ(read_file(cluster.log_path("a", 1, "out")),
            "100\n50\n149\n150\ntwo words'; echo pwned $(id)\nlocal-0\n");
}

TEST_F(LocalProcessClusterTest, ShutdownSignalWakesPollButLeavesStoppingToTheScheduler) {
  ShutdownSignal shutdown;
  LocalProcessCluster cluster(options("sleep 30", 2), clock, &shutdown);
  cluster.set_listener(&listener);
  cluster.submit(submission(1, item("a")));
  cluster.submit(submission(2, item("b")));
  cluster.poll(0);
  kill(getpid(), SIGTERM);
  cluster.poll(60 * data::kMicrosPerSecond);  // returns at once: the signal woke it
  EXPECT_TRUE(shutdown.requested());
  EXPECT_EQ(listener.find("failed", 1), nullptr);
  EXPECT_EQ(cluster.running(), 2);
  EXPECT_EQ(cluster.capacity(), 2);
  cluster.cancel(1);
  cluster.cancel(2);
  poll_until_finished(cluster, 2);
  EXPECT_EQ(listener.find("failed", 1)->event.reason, "cancelled");
  EXPECT_EQ(listener.find("failed", 2)->event.reason, "cancelled");
}

TEST_F(LocalProcessClusterTest, RejectsBadConcurrencyAndUnusableLogDirectory) {
  EXPECT_THROW(LocalProcessCluster(options("true", 0), clock), data::Error);
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "x";
  LocalProcessOptions o = options("true");
  o.log_dir = (dir / "file" / "logs").string();
  try {
    LocalProcessCluster cluster(o, clock);
    FAIL() << "expected an error";
  } catch (const data::Error& error) {
    EXPECT_EQ(error.input(), o.log_dir);
  }
}

}  // namespace
}  // namespace millrace::cluster_adapter
