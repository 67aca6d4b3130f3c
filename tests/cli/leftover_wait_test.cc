// End-to-end, with the real binary: `run --resume --leftovers wait` after millrace was SIGKILLed
// with attempts in flight. The attempts it left run on; the resumed run waits for them and
// records their real outcome from the exit status their recorder wrote (exit code, end), so a
// range whose leftover succeeded is not run again, one whose leftover failed is retried, and one
// whose status never appeared (its file removed: a lost leftover) is run again; one past the
// run's --timeout is ended as a timeout, and a Ctrl-C stops the wait leaving the leftovers to the
// next resume. Workers (tests/cli/gated_worker.sh) end when the test opens their gate and log
// what they did.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "data/trace_store.h"
#include "tests/cli/cli_process.h"
#include "tests/cli/store_query.h"

namespace millrace {
namespace {

namespace fs = std::filesystem;

using cli_test::CliResult;
using cli_test::lines_of;
using cli_test::read_text;

const std::string kWorker = std::string(MILLRACE_SOURCE_DIR) + "/tests/cli/gated_worker.sh";
constexpr data::Micros kTimestampSlack = 20 * data::kMicrosPerMilli;  // file times are coarse

data::Micros wall_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What a worker logged: "ID ATTEMPT begin NANOS" and "ID ATTEMPT end NANOS CODE".
struct WorkerEvent {
  std::string id;
  int attempt = 0;
  std::string what;
  data::Micros at = 0;
};

class LeftoverWaitTest : public cli_test::CliRunTest {
 protected:
  std::vector<WorkerEvent> events() {
    std::vector<WorkerEvent> out;
    for (const std::string& line : lines_of(read_text(dir / "log"))) {
      std::istringstream fields(line);
      WorkerEvent e;
      long long nanos = 0;
      fields >> e.id >> e.attempt >> e.what >> nanos;
      e.at = nanos / 1000;
      out.push_back(e);
    }
    return out;
  }
  // When attempt `attempt` of range `id` logged `what` (nullopt: it did not).
  std::optional<data::Micros> when(const std::string& id, int attempt, const std::string& what) {
    for (const WorkerEvent& e : events()) {
      if (e.id == id && e.attempt == attempt && e.what == what) return e.at;
    }
    return std::nullopt;
  }
  // How many attempts of each range began.
  std::map<std::string, int> begins() {
    std::map<std::string, int> counts;
    for (const WorkerEvent& e : events()) counts[e.id] += e.what == "begin";
    return counts;
  }
  // Polls `done` every 10 ms for up to 30 s.
  static bool eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 3000; ++i) {
      if (done()) return true;
      usleep(10'000);
    }
    return done();
  }
  void open_gate(const std::string& id) { std::ofstream(dir / ("go-" + id)) << "go"; }
  fs::path status_file(const std::string& id, int attempt) {
    return store + ".logs/run-1/" + id + "." + std::to_string(attempt) + ".status";
  }
  std::string command() { return "sh " + kWorker + " " + dir.string() + " {id} {attempt} 10-19"; }
  // Starts the run of `ranges` ranges on as many workers and SIGKILLs it once all have begun.
  void start_and_kill(int ranges) {
    const pid_t first = start(run_args(command(), ranges, ranges));
    ASSERT_GT(first, 1);
    ASSERT_TRUE(eventually([&] { return static_cast<int>(events().size()) == ranges; })) << read_text(dir / "log");
    ASSERT_EQ(kill(first, SIGKILL), 0);
    ASSERT_EQ(finish(first).exit_code, 128 + SIGKILL);
    first_pid = first;
  }
  std::map<std::string, data::Attempt> attempts_by_key() {
    std::map<std::string, data::Attempt> out;
    for (const data::Attempt& a : data::TraceStore::open_for_reading(store).attempts(1)) {
      out[a.item_id + "#" + std::to_string(a.number)] = a;
    }
    return out;
  }
  pid_t first_pid = -1;
};

TEST_F(LeftoverWaitTest, AResumeWaitsForTheLeftoversAndRecordsTheirExitCodesAndDurations) {
  start_and_kill(4);
  // While millrace is dead: two leftovers end, and one of them loses its status file.
  open_gate("0-9");
  open_gate("20-29");
  ASSERT_TRUE(eventually([&] { return fs::exists(status_file("0-9", 1)) && fs::exists(status_file("20-29", 1)); }));
  ASSERT_TRUE(eventually([&] { return read_text(status_file("20-29", 1)) == "0\n"; }));
  fs::remove(status_file("20-29", 1));
  // Its recorder gone too (it exits right after writing), as a lost leftover would be.
  const pid_t recorder = static_cast<pid_t>(
      cli_test::query_count(store, "SELECT pid FROM attempt_trees WHERE item_id = '20-29' AND number = 1"));
  ASSERT_GT(recorder, 1);
  ASSERT_TRUE(eventually([&] { return !cli_test::process_runs(recorder); }));
  const data::Micros resumed_at = wall_now();
  const pid_t resumed = start({"run", "--store", store, "--resume", "1", "--leftovers", "wait"});
  ASSERT_GT(resumed, 1);
  ASSERT_TRUE(eventually([&] { return read_text(dir / "stderr").find("waiting for 2 attempts") != std::string::npos; }))
      << read_text(dir / "stderr");
  EXPECT_FALSE(when("20-29", 2, "begin")) << "a range ran again while leftovers were awaited";
  const data::Micros released_at = wall_now();
  open_gate("10-19");
  open_gate("30-39");
  CliResult done = finish(resumed);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.err.find("taking over from millrace pid " + std::to_string(first_pid)), std::string::npos) << done.err;
  EXPECT_NE(done.err.find("of 4 attempts it left unfinished, 3 ended by themselves (recorded with their exit "
                          "status), 1 recorded as cancelled (session-lost)"),
            std::string::npos)
      << done.err;

  // From the workers' own log: no range ran twice but the failed and the lost ones, once more.
  EXPECT_EQ(begins(), (std::map<std::string, int>{{"0-9", 1}, {"10-19", 2}, {"20-29", 2}, {"30-39", 1}}));
  std::map<std::string, data::Attempt> recorded = attempts_by_key();
  ASSERT_EQ(recorded.size(), 6u);

  const data::Attempt& ended_while_dead = recorded.at("0-9#1");
  EXPECT_EQ(ended_while_dead.outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(ended_while_dead.exit_code, 0);
  ASSERT_TRUE(when("0-9", 1, "end"));
  EXPECT_LE(ended_while_dead.start, *when("0-9", 1, "begin") + kTimestampSlack);
  EXPECT_GE(ended_while_dead.end, *when("0-9", 1, "end") - kTimestampSlack);
  EXPECT_LT(ended_while_dead.end, resumed_at) << "its real end, not the resume's time";

  const data::Attempt& failed = recorded.at("10-19#1");
  EXPECT_EQ(failed.outcome, data::Outcome::kFailed);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.failure_reason, "exit");
  EXPECT_GE(failed.end, released_at - kTimestampSlack);
  EXPECT_EQ(recorded.at("10-19#2").outcome, data::Outcome::kSucceeded);

  const data::Attempt& lost = recorded.at("20-29#1");
  EXPECT_EQ(lost.outcome, data::Outcome::kCancelled);
  EXPECT_EQ(lost.failure_reason, "session-lost");
  EXPECT_EQ(recorded.at("20-29#2").outcome, data::Outcome::kSucceeded);

  const data::Attempt& waited = recorded.at("30-39#1");
  EXPECT_EQ(waited.outcome, data::Outcome::kSucceeded);
  ASSERT_TRUE(when("30-39", 1, "end"));
  EXPECT_LE(waited.start, *when("30-39", 1, "begin") + kTimestampSlack);
  EXPECT_GE(waited.end, *when("30-39", 1, "end") - kTimestampSlack);
  EXPECT_GE(waited.duration(), *when("30-39", 1, "end") - *when("30-39", 1, "begin") - kTimestampSlack);

  EXPECT_EQ(cli_test::query_count(store, "SELECT count(*) FROM attempt_trees"), 0);
  EXPECT_EQ(cli_test::query_store(store, "SELECT group_concat(state) FROM (SELECT state FROM run_sessions ORDER BY "
                                         "session)"),
            std::vector<std::string>{"swept,ended"});
}

// A range that finished while millrace was dead, its status file then cut to 0 bytes (the disk
// was full when its recorder wrote): it ran again on resume as if it never had, silently. The
// file proves the command ended (the shell creates it afterwards), so the attempt is recorded
// failed with its exit status lost, the resume says so, and the range runs again as a retry.
TEST_F(LeftoverWaitTest, ALeftoverWhoseStatusFileIsEmptyIsRecordedAsEndedWithItsStatusLostAndSaidSo) {
  start_and_kill(2);
  open_gate("0-9");
  ASSERT_TRUE(eventually([&] { return read_text(status_file("0-9", 1)) == "0\n"; }));
  const pid_t recorder = static_cast<pid_t>(
      cli_test::query_count(store, "SELECT pid FROM attempt_trees WHERE item_id = '0-9' AND number = 1"));
  ASSERT_GT(recorder, 1);
  ASSERT_TRUE(eventually([&] { return !cli_test::process_runs(recorder); }));
  std::ofstream(status_file("0-9", 1), std::ios::trunc).close();  // cut to 0 bytes
  const pid_t resumed = start({"run", "--store", store, "--resume", "1", "--leftovers", "wait"});
  ASSERT_GT(resumed, 1);
  open_gate("10-19");
  CliResult done = finish(resumed);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.err.find("of 2 attempts it left unfinished, 1 ended by themselves (recorded with their exit "
                          "status), 1 ended with their exit status lost (status file empty or cut short: was the "
                          "disk full?), recorded as failed (exit-status-lost, their ranges run again as retries), "
                          "0 recorded as cancelled (session-lost)"),
            std::string::npos)
      << done.err;
  std::map<std::string, data::Attempt> recorded = attempts_by_key();
  const data::Attempt& lost = recorded.at("0-9#1");
  EXPECT_EQ(lost.outcome, data::Outcome::kFailed);
  EXPECT_EQ(lost.failure_reason, "exit-status-lost");
  EXPECT_EQ(lost.exit_code, -1);
  ASSERT_TRUE(when("0-9", 1, "end"));
  EXPECT_GE(lost.end, *when("0-9", 1, "end") - kTimestampSlack);  // its end, from the file
  EXPECT_EQ(recorded.at("0-9#2").outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(recorded.at("10-19#1").exit_code, 3);  // the worker's own failure, recorded as such
}

TEST_F(LeftoverWaitTest, ALeftoverStillRunningAfterTheWaitLimitIsEndedAndItsRangeRunAgain) {
  start_and_kill(2);
  open_gate("0-9");
  CliResult resumed = run({"run", "--store", store, "--resume", "1", "--leftovers", "wait", "--leftover-wait", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("still running after --leftover-wait"), std::string::npos) << resumed.err;
  std::map<std::string, data::Attempt> recorded = attempts_by_key();
  ASSERT_EQ(recorded.size(), 3u);
  EXPECT_EQ(recorded.at("0-9#1").outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(recorded.at("10-19#1").failure_reason, "session-lost");
  EXPECT_EQ(recorded.at("10-19#2").outcome, data::Outcome::kSucceeded);
  // The leftover was ended, not left to finish beside its range's new attempt.
  EXPECT_FALSE(when("10-19", 1, "end"));
  EXPECT_EQ(begins(), (std::map<std::string, int>{{"0-9", 1}, {"10-19", 2}}));
}

TEST_F(LeftoverWaitTest, ALeftoverPastTheRunsTimeoutIsEndedRecordedAsATimeoutAndRetried) {
  const pid_t first = start({"run", "--store", store, "--span", "0:9", "--partitioner", "uniform", "--range-count", "1",
                             "--timeout", "1.5", "--command", command()});
  ASSERT_GT(first, 1);
  ASSERT_TRUE(eventually([&] { return events().size() == 1; }));
  ASSERT_EQ(kill(first, SIGKILL), 0);
  ASSERT_EQ(finish(first).exit_code, 128 + SIGKILL);
  CliResult resumed = run({"run", "--store", store, "--resume", "1", "--leftovers", "wait"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("1 ran past --timeout (recorded as timeouts)"), std::string::npos) << resumed.err;
  std::map<std::string, data::Attempt> recorded = attempts_by_key();
  ASSERT_EQ(recorded.size(), 2u);
  const data::Attempt& timed_out = recorded.at("0-9#1");
  EXPECT_EQ(timed_out.outcome, data::Outcome::kFailed);
  EXPECT_EQ(timed_out.failure_reason, "timeout");
  EXPECT_GE(timed_out.duration(), data::micros_from_seconds(1.5));
  EXPECT_EQ(recorded.at("0-9#2").outcome, data::Outcome::kSucceeded);
  EXPECT_FALSE(when("0-9", 1, "end"));
}

TEST_F(LeftoverWaitTest, ACtrlCWhileWaitingLeavesTheLeftoversRunningForTheNextResume) {
  start_and_kill(1);
  const pid_t waiting = start({"run", "--store", store, "--resume", "1", "--leftovers", "wait"});
  ASSERT_GT(waiting, 1);
  ASSERT_TRUE(eventually([&] { return read_text(dir / "stderr").find("waiting for 1 attempts") != std::string::npos; }))
      << read_text(dir / "stderr");
  ASSERT_EQ(kill(waiting, SIGINT), 0);
  CliResult stopped = finish(waiting);
  EXPECT_EQ(stopped.exit_code, 1);
  EXPECT_NE(stopped.err.find("run 1: interrupted while waiting for 1 attempts left running by session 1 (pid " +
                             std::to_string(first_pid) + "); they run on"),
            std::string::npos)
      << stopped.err;
  EXPECT_EQ(cli_test::query_count(store, "SELECT count(*) FROM attempts"), 0);

  open_gate("0-9");
  ASSERT_TRUE(eventually([&] { return fs::exists(status_file("0-9", 1)); }));
  CliResult resumed = run({"run", "--store", store, "--resume", "1", "--leftovers", "wait"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::map<std::string, data::Attempt> recorded = attempts_by_key();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded.at("0-9#1").outcome, data::Outcome::kSucceeded);
  EXPECT_EQ(begins(), (std::map<std::string, int>{{"0-9", 1}}));
}

TEST_F(LeftoverWaitTest, LeftoverOptionsAreRefusedWhereTheyDoNotApply) {
  CliResult fresh = run({"run", "--store", store, "--span", "0:9", "--partitioner", "uniform", "--range-count", "1",
                         "--command", "true", "--leftovers", "wait"});
  EXPECT_EQ(fresh.exit_code, 1);
  EXPECT_NE(fresh.err.find("--leftovers wait: applies to --resume only"), std::string::npos) << fresh.err;
  ASSERT_EQ(run(run_args("true", 1, 1)).exit_code, 0);
  CliResult limit = run({"run", "--store", store, "--resume", "1", "--leftover-wait", "5"});
  EXPECT_EQ(limit.exit_code, 1);
  EXPECT_NE(limit.err.find("--leftover-wait: applies to --leftovers wait only"), std::string::npos) << limit.err;
  CliResult unknown = run({"run", "--store", store, "--resume", "1", "--leftovers", "keep"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("--leftovers"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace millrace
