// The example pool worker (deploy/pool-worker.sh, curl + jq) against the lease server, run as
// the processes a pool's pods would run: it leases ranges and runs its command with the range in
// the environment, reports each exit code, keeps a lease past its duration by heartbeating, and
// exits 0 when told the run is over; every request carries the lease token (the server refuses
// any other). Checks the documented protocol from the worker's side.
//
// The lease book runs on a clock the test moves, not the wall clock: a worker is a shell script
// spawning curl and jq, and on a loaded machine the second between a lease's grant and its first
// heartbeat was not always enough (the lease expired and the test failed, 1 run in 2 under
// `ctest -j2`). Time now moves only when the test has seen the heartbeat it waits for.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cluster_adapter/kubernetes/worker_pool/lease_server.h"
#include "tests/support/loose_plans.h"
#include "tests/cluster_adapter/kubernetes/k8s_test_support.h"
#include "tests/support/manual_clock.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

class PoolWorkerScript : public ::testing::Test {
 protected:
  PoolWorkerScript()
      : dir_(scratch_.path()),
        book_(clock_, {kDuration, 100 * data::kMicrosPerMilli, 200 * data::kMicrosPerMilli}, "s"),
        server_(book_, "run-1", 2, "127.0.0.1", 0, kToken) {
    for (int i = 0; i < 5; ++i) {
      data::WorkItem item;
      item.id = "r";
      item.id += std::to_string(i);
      item.range = data::Range{100 * i, 10 + i};
      items_.push_back(item);
    }
  }

  // Starts the script as pod `pod`, running `command` (sh -c) for each range.
  pid_t start_worker(const std::string& pod, const std::string& command) {
    pid_t pid = fork();
    if (pid == 0) {
      std::string url = "MILLRACE_LEASE_URL=http://127.0.0.1:" + std::to_string(server_.port());
      std::string token = std::string("MILLRACE_LEASE_TOKEN=") + kToken;
      std::string name = "POD_NAME=" + pod;
      std::string path = std::string("PATH=") + (getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
      char* env[] = {url.data(), token.data(), name.data(), path.data(), nullptr};
      std::string script = std::string(MILLRACE_SOURCE_DIR) + "/deploy/pool-worker.sh";
      execle("/bin/sh", "sh", script.c_str(), "sh", "-c", command.c_str(), static_cast<char*>(nullptr), env);
      _exit(127);
    }
    return pid;
  }

  // Delivers events until `count` attempts ended (or ~30 s passed); returns them all.
  std::vector<LeaseEvent> until_ended(int count) {
    std::vector<LeaseEvent> all;
    int ended = 0;
    for (int i = 0; i < 300 && ended < count; ++i) {
      for (const LeaseEvent& e : book_.wait_events(100 * data::kMicrosPerMilli)) {
        ended += e.kind != LeaseEvent::Kind::kStarted;
        all.push_back(e);
      }
    }
    return all;
  }

  static int exit_status(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  static constexpr const char* kToken = "3f1c0ffee";
  static constexpr data::Micros kDuration = 1 * data::kMicrosPerSecond;

  test_support::ScratchDir scratch_;
  fs::path dir_;
  test_support::ManualClock clock_{1 * data::kMicrosPerSecond};
  LeaseBook book_;
  LeaseServer server_;
  std::vector<data::WorkItem> items_;
};

TEST_F(PoolWorkerScript, RunsEachLeasedRangeWithItsParametersReportsExitCodesAndExitsAtTheEnd) {
  for (int i = 0; i < 5; ++i) {
    book_.offer(test_support::loose_submission(static_cast<scheduler::AttemptHandle>(i + 1), items_[i], 1));
  }
  std::string log = (dir_ / "ranges").string();
  std::string command = "echo \"$MILLRACE_ITEM $MILLRACE_ATTEMPT $MILLRACE_FIRST $MILLRACE_COUNT $MILLRACE_END "
                        "$MILLRACE_RUN\" >> " + log + "; [ \"$MILLRACE_ITEM\" != r3 ] || exit 4";
  pid_t a = start_worker("pool-0-0", command);
  pid_t b = start_worker("pool-1-0", command);
  std::vector<LeaseEvent> events = until_ended(5);
  book_.close();
  EXPECT_EQ(exit_status(a), 0);
  EXPECT_EQ(exit_status(b), 0);

  std::map<scheduler::AttemptHandle, LeaseEvent> ends;
  int started = 0;
  for (const LeaseEvent& e : events) {
    if (e.kind == LeaseEvent::Kind::kStarted) {
      ++started;
      EXPECT_TRUE(e.event.worker == "pool-0-0" || e.event.worker == "pool-1-0") << e.event.worker;
    } else {
      ends[e.event.handle] = e;
    }
  }
  EXPECT_EQ(started, 5);
  ASSERT_EQ(ends.size(), 5u);
  for (const auto& [handle, e] : ends) {
    bool failing = handle == 4;  // r3
    EXPECT_EQ(e.kind, failing ? LeaseEvent::Kind::kFailed : LeaseEvent::Kind::kSucceeded) << handle;
    EXPECT_EQ(e.event.exit_code, failing ? 4 : 0) << handle;
    EXPECT_TRUE(e.event.work_time.has_value());
  }
  std::ifstream in(log);
  std::multiset<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.insert(line);
  EXPECT_EQ(lines, (std::multiset<std::string>{"r0 1 0 10 10 run-1", "r1 1 100 11 111 run-1", "r2 1 200 12 212 run-1",
                                               "r3 1 300 13 313 run-1", "r4 1 400 14 414 run-1"}));
}

// The lease's time moves on 0.6 of its duration at a time, each step only once the book has seen
// a heartbeat at the time reached: after 4 steps the lease has lasted 2.4 durations, held by
// heartbeats alone. Real time only bounds the wait for each heartbeat (a hang guard).
TEST_F(PoolWorkerScript, HeartbeatsKeepALeaseLongerThanItsDuration) {
  book_.offer(test_support::loose_submission(1, items_[0], 1));
  const fs::path go = dir_ / "go";
  pid_t worker = start_worker("pool-0-0", "while [ ! -e " + go.string() + " ]; do sleep 0.05; done");
  std::vector<LeaseEvent> events;
  for (int i = 0; i < 300 && events.empty(); ++i) events = book_.wait_events(100 * data::kMicrosPerMilli);
  ASSERT_EQ(events.size(), 1u);
  ASSERT_EQ(events[0].kind, LeaseEvent::Kind::kStarted);
  const data::Micros granted = clock_.now();
  auto heartbeat_seen_now = [&] {
    LeaseBookStatus status = book_.status();
    return status.leases.size() == 1 && status.leases[0].expires == clock_.now() + kDuration;
  };
  for (int step = 1; step <= 4; ++step) {
    for (int i = 0; i < 300 && !heartbeat_seen_now(); ++i) usleep(100'000);
    ASSERT_TRUE(heartbeat_seen_now()) << "no heartbeat at step " << step;
    clock_.set(clock_.now() + kDuration * 6 / 10);
    EXPECT_TRUE(book_.wait_events(0).empty()) << "step " << step;  // nothing expired
  }
  EXPECT_GT(clock_.now() - granted, 2 * kDuration);
  std::ofstream(go.string()).put('\n');
  std::vector<LeaseEvent> ended = until_ended(1);
  book_.close();
  EXPECT_EQ(exit_status(worker), 0);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].kind, LeaseEvent::Kind::kSucceeded) << ended[0].event.reason;
  EXPECT_EQ(book_.status().expired, 0);
}

}  // namespace
}  // namespace millrace::cluster_adapter
