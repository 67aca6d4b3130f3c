#include "cluster_adapter/local/local_process_cluster.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_adapter/realtime/wall_clock.h"
#include "data/error.h"
#include "tests/support/loose_plans.h"
#include "tests/support/recording_listener.h"
#include "tests/support/scratch_dir.h"

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
    dir = scratch_.path() / "work";  // not made: the cluster makes what it needs
  }

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
    return test_support::loose_submission(handle, it, attempt);
  }

  // Polls (each poll may block up to an hour: only events wake it) until `n` attempts finished.
  void poll_until_finished(LocalProcessCluster& cluster, int n) {
    for (int i = 0; i < 1000 && listener.finished() < n; ++i) cluster.poll(data::kMicrosPerHour);
    ASSERT_EQ(listener.finished(), n);
  }

  test_support::ScratchDir scratch_;
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

TEST_F(LocalProcessClusterTest, EachAttemptLeavesItsExitStatusBesideItsLogsAndItsTreeNamesTheFile) {
  LocalProcessCluster cluster(options("sleep 0.1; exit 4"), clock);
  cluster.set_listener(&listener);
  const std::string status = cluster.log_path("a", 1, "status");
  // A status file an earlier run left under the same name is gone before the attempt starts.
  fs::create_directories(fs::path(status).parent_path());
  std::ofstream(status) << "0\n";
  std::string observed;
  bool stale_seen = true;
  cluster.set_tree_observer([&](const data::WorkItem&, int, const std::string&, const TreeIdentity& tree) {
    observed = tree.status_file;
    stale_seen = fs::exists(status);
  });
  cluster.submit(submission(1, item("a")));
  poll_until_finished(cluster, 1);
  EXPECT_EQ(observed, fs::absolute(status).string());
  EXPECT_FALSE(stale_seen);
  EXPECT_EQ(read_file(status), "4\n");
  const RecordedEvent* failed = listener.find("failed", 1);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.exit_code, 4);
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

// A capacity of 2 CPU: a (2 CPU) runs, b (1 CPU) is held, c (1 CPU) queues behind b (no
// overtaking); cancelling b lets c wait for a, and a's end starts c.
TEST_F(LocalProcessClusterTest, RequestsArePackedIntoTheCapacityFirstComeFirstStarted) {
  LocalProcessOptions o = options("sleep 30", 3);
  o.capacity = {{"cpu", 2000}};
  LocalProcessCluster cluster(o, clock);
  cluster.set_listener(&listener);
  data::WorkItem& a = item("a");
  a.requests = {{"cpu", 2000}};
  data::WorkItem& b = item("b");
  b.requests = {{"cpu", 1000}};
  data::WorkItem& c = item("c");
  c.requests = {{"cpu", 1000}};
  cluster.submit(submission(1, a));
  cluster.submit(submission(2, b));
  cluster.submit(submission(3, c));
  cluster.poll(0);
  EXPECT_NE(listener.find("started", 1), nullptr);
  EXPECT_EQ(cluster.running(), 1);
  EXPECT_EQ(cluster.held(), 2);
  cluster.cancel(2);
  cluster.poll(0);
  ASSERT_NE(listener.find("failed", 2), nullptr);
  EXPECT_EQ(listener.find("failed", 2)->event.reason, "cancelled");
  EXPECT_EQ(listener.find("started", 3), nullptr);  // a still holds both CPUs
  cluster.cancel(1);
  poll_until_finished(cluster, 2);
  cluster.poll(0);
  ASSERT_NE(listener.find("started", 3), nullptr);
  EXPECT_EQ(cluster.held(), 0);
  data::WorkItem& big = item("big");
  big.requests = {{"cpu", 3000}};
  try {
    cluster.submit(submission(4, big));
    FAIL();
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("item 'big': requests cpu 3, more than this machine has for attempts (cpu 2, "
                                         "--local-capacity): short of cpu"),
              std::string::npos)
        << e.what();
  }
  cluster.cancel(3);
  poll_until_finished(cluster, 3);
}

TEST_F(LocalProcessClusterTest, AHeldSubmissionIsPlacedWhenItsRoomIsFreedAndStartsReportWhereAndWhen) {
  LocalProcessOptions o = options("sleep 30", 2);
  o.capacity = {{"cpu", 1000}};
  LocalProcessCluster cluster(o, clock);
  cluster.set_listener(&listener);
  data::WorkItem& a = item("a");
  a.requests = {{"cpu", 1000}};
  data::WorkItem& b = item("b");
  b.requests = {{"cpu", 1000}};
  const data::Micros submitted = clock.now();
  cluster.submit(submission(1, a));
  cluster.submit(submission(2, b));  // held: a holds the CPU
  cluster.poll(0);
  const RecordedEvent* first = listener.find("started", 1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->event.node, "local-0");
  ASSERT_TRUE(first->event.placed.has_value());
  EXPECT_GE(*first->event.placed, submitted);
  EXPECT_LE(*first->event.placed, first->event.at);
  cluster.cancel(1);
  poll_until_finished(cluster, 1);
  cluster.poll(0);
  const RecordedEvent* second = listener.find("started", 2);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->event.node, "local-0");  // the slot a left
  ASSERT_TRUE(second->event.placed.has_value());
  EXPECT_GE(*second->event.placed, listener.find("failed", 1)->event.at);  // placed once a's room was freed
  EXPECT_LE(*second->event.placed, second->event.at);
  cluster.cancel(2);
  poll_until_finished(cluster, 2);
}

TEST_F(LocalProcessClusterTest, CapturesStdoutAndStderrPerAttempt) {
  LocalProcessCluster cluster(options("echo out-{id}-{attempt}; echo err-{id} >&2; exit {attempt}"), clock);
  cluster.set_listener(&listener);
  cluster.submit(submission(1, item("x/1"), 2));
  poll_until_finished(cluster, 1);
  EXPECT_EQ(read_file(cluster.log_path("x/1", 2, "out")), "out-x/1-2\n");
  EXPECT_EQ(read_file(cluster.log_path("x/1", 2, "err")), "err-x/1\n");
  EXPECT_EQ(cluster.log_path("x/1", 2, "out"), (dir / "logs" / "x%2F1.2.out").string());
  EXPECT_EQ(listener.find("failed", 1)->event.exit_code, 2);
}

// Reverses %XX escapes: the reference the file names are checked against.
std::string unescape(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '%') {
      out += static_cast<char>(std::stoi(name.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += name[i];
    }
  }
  return out;
}

TEST_F(LocalProcessClusterTest, LogFileNamesAreInjectiveInTheItemId) {
  const std::vector<std::string> ids = {"a/b", "a_b", "a%2Fb", "a b", "a:b", "a\\b", "\xc3\xa4", "..", "-", "0-99"};
  LocalProcessCluster cluster(options("printf '%s\\n' {id}", static_cast<int>(ids.size())), clock);
  cluster.set_listener(&listener);
  std::set<std::string> names;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::string path = cluster.log_path(ids[i], 1, "out");
    std::string name = fs::path(path).filename().string();
    ASSERT_TRUE(name.ends_with(".1.out")) << name;
    std::string stem = name.substr(0, name.size() - 6);
    EXPECT_EQ(stem.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-%"),
              std::string::npos) << stem;
    EXPECT_EQ(unescape(stem), ids[i]);
    names.insert(name);
    cluster.submit(submission(i + 1, item(ids[i])));
  }
  EXPECT_EQ(names.size(), ids.size());
  poll_until_finished(cluster, static_cast<int>(ids.size()));
  for (const std::string& id : ids) EXPECT_EQ(read_file(cluster.log_path(id, 1, "out")), id + "\n") << id;
}

// Open descriptors of this process.
std::size_t open_descriptors() {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator()));
}

TEST_F(LocalProcessClusterTest, ALogFileThatCannotBeOpenedLeaksNoDescriptor) {
  LocalProcessCluster cluster(options("true"), clock);
  cluster.set_listener(&listener);
  // The second file (stdout) of item a, then the third (stderr) of item b, cannot be opened.
  fs::create_directories(cluster.log_path("a", 1, "out"));
  fs::create_directories(cluster.log_path("b", 1, "err"));
  std::size_t before = open_descriptors();
  for (const std::string id : {"a", "b"}) {
    const std::string stream = id == "a" ? "out" : "err";
    try {
      cluster.submit(submission(1, item(id)));
      FAIL() << "expected an error for " << id;
    } catch (const data::Error& error) {
      EXPECT_EQ(error.input(), cluster.log_path(id, 1, stream));
      EXPECT_NE(error.problem().find("cannot open"), std::string::npos) << error.problem();
    }
    EXPECT_EQ(open_descriptors(), before) << "after the failed open of " << stream;
  }
  EXPECT_EQ(cluster.running(), 0);
  cluster.submit(submission(1, item("c")));
  poll_until_finished(cluster, 1);
  EXPECT_NE(listener.find("succeeded", 1), nullptr);
  EXPECT_EQ(open_descriptors(), before);
}

// The attempt's tree, cgroup or not: a descendant in a new session outlives the leader's exit
// only until the end is reported, and the observer hears of the tree when it starts.
class LocalProcessTreeTest : public LocalProcessClusterTest, public ::testing::WithParamInterface<bool> {};

TEST_P(LocalProcessTreeTest, TheEndIsReportedOnlyOnceTheWholeTreeIsGone) {
  std::string pid_file = (dir / "escaped.pid").string();
  LocalProcessOptions o = options("setsid sh -c 'echo $$ > '{payload}'.tmp && mv '{payload}'.tmp '{payload}'; exec sleep 300' & "
                                  "while [ ! -s {payload} ]; do sleep 0.01; done; exit 0");
  o.cgroups = GetParam();
  LocalProcessCluster cluster(o, clock);
  cluster.set_listener(&listener);
  std::vector<TreeIdentity> trees;
  cluster.set_tree_observer([&](const data::WorkItem& it, int attempt, const std::string& worker, const TreeIdentity& tree) {
    EXPECT_EQ(it.id, "a");
    EXPECT_EQ(attempt, 3);
    EXPECT_EQ(worker, "local-0");
    trees.push_back(tree);
  });
  cluster.submit(submission(1, item("a", pid_file), 3));
  poll_until_finished(cluster, 1);
  ASSERT_EQ(trees.size(), 1u);
  EXPECT_EQ(trees[0].tag, cluster.trees().session_tag() + ".1");
  EXPECT_EQ(trees[0].cgroup.empty(), !cluster.trees().uses_cgroups());
  pid_t escaped = std::stoi(read_file(pid_file));
  EXPECT_NE(getsid(escaped), getsid(trees[0].pid));
  EXPECT_TRUE(process_gone(escaped));  // already when the end was reported
  ASSERT_NE(listener.find("succeeded", 1), nullptr);
}

TEST_P(LocalProcessTreeTest, CancelEndsDescendantsInOtherSessions) {
  std::string pid_file = (dir / "escaped.pid").string();
  LocalProcessOptions o = options("(setsid sh -c 'echo $$ > '{payload}'.tmp && mv '{payload}'.tmp '{payload}'; exec sleep 300' &); sleep 300");
  o.cgroups = GetParam();
  LocalProcessCluster cluster(o, clock);
  cluster.set_listener(&listener);
  cluster.submit(submission(1, item("a", pid_file)));
  for (int i = 0; i < 1000 && !fs::exists(pid_file); ++i) cluster.poll(10 * data::kMicrosPerMilli);
  ASSERT_TRUE(fs::exists(pid_file));
  pid_t escaped = std::stoi(read_file(pid_file));
  ASSERT_FALSE(process_gone(escaped));
  cluster.cancel(1);
  poll_until_finished(cluster, 1);
  EXPECT_EQ(listener.find("failed", 1)->event.reason, "cancelled");
  EXPECT_TRUE(process_gone(escaped));
}

INSTANTIATE_TEST_SUITE_P(Containment, LocalProcessTreeTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "CgroupWhereAllowed" : "MarkerOnly"; });

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
