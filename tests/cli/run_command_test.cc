// End-to-end: `millrace run --cluster local` runs real processes, records every attempt in the
// trace store, stops gracefully on SIGINT and resumes after SIGKILL without losing or
// re-running completed items.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/trace_store.h"
#include "sim/duration_model.h"
#include "sim/simulation.h"
#include "tests/cli/cli_process.h"

namespace millrace {
namespace {

namespace fs = std::filesystem;

using cli_test::CliResult;
using cli_test::lines_of;
using cli_test::read_text;
using Result = CliResult;

class RunCommandTest : public cli_test::CliRunTest {
 protected:
  // Starts a run of 6 ranges on one worker whose command appends to `started` and waits for
  // `go` to exist; interrupts it (SIGINT) once the first range started, leaving run 1 to resume.
  void interrupt_first_range(const std::string& command, const std::string& started) {
    pid_t pid = start(run_args(command, 6, 1));
    for (int i = 0; i < 3000 && lines_of(read_text(started)).empty(); ++i) usleep(10'000);
    ASSERT_EQ(lines_of(read_text(started)).size(), 1u);
    kill(pid, SIGINT);
    ASSERT_EQ(finish(pid).exit_code, 1);
  }
};

TEST_F(RunCommandTest, LocalRunRecordsEveryRangeSucceededExactlyOnceWithItsTiming) {
  std::string marker = (dir / "done").string();
  Result result = run(run_args("sleep 0.1; echo {first} {count} {last} {end} >> " + marker, 8, 3));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("run 1: 8/8 items succeeded"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find('\r'), std::string::npos) << "no progress line when stdout is not a terminal";

  data::TraceStore trace = data::TraceStore::open(store);
  data::Run run = trace.run(1);
  EXPECT_EQ(run.source, data::RunSource::kReal);
  EXPECT_EQ(run.partitioner, "uniform");
  EXPECT_GT(run.ended, run.started);
  std::vector<data::WorkItem> items = trace.items(1);
  ASSERT_EQ(items.size(), 8u);
  std::vector<data::Attempt> attempts = trace.attempts(1);
  ASSERT_EQ(attempts.size(), 8u);
  std::set<std::string> workers;
  for (const data::Attempt& a : attempts) {
    EXPECT_EQ(a.outcome, data::Outcome::kSucceeded);
    EXPECT_GE(a.duration(), 100 * data::kMicrosPerMilli) << a.item_id;
    workers.insert(a.worker);
  }
  EXPECT_LE(workers.size(), 3u);
  EXPECT_EQ(successes().size(), 8u);
  std::set<std::string> lines;
  for (const std::string& line : lines_of(read_text(marker))) lines.insert(line);
  EXPECT_EQ(lines.size(), 8u);
  EXPECT_TRUE(lines.contains("0 10 9 10"));
  EXPECT_TRUE(lines.contains("70 10 79 80"));
  EXPECT_TRUE(fs::exists(store + ".logs/run-1/0-9.1.out"));
}

TEST_F(RunCommandTest, FailingCommandRecordsEveryAttemptAndExitsNonZero) {
  std::vector<std::string> args = run_args("echo oops >&2; exit 3", 2, 2);
  args.insert(args.end(), {"--max-attempts", "2"});
  Result result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: run 1: 2 items failed"), std::string::npos) << result.err;
  std::vector<data::Attempt> attempts = data::TraceStore::open(store).attempts(1);
  ASSERT_EQ(attempts.size(), 4u);
  for (const data::Attempt& a : attempts) {
    EXPECT_EQ(a.outcome, data::Outcome::kFailed);
    EXPECT_EQ(a.exit_code, 3);
    EXPECT_EQ(a.failure_reason, "exit");
  }
  EXPECT_EQ(read_text(store + ".logs/run-1/0-9.2.err"), "oops\n");
  // show says how they failed (the attempt that ended last is either item's second).
  Result shown = run({"show", "--store", store, "1"});
  EXPECT_NE(shown.out.find("  failures:       4 attempts: exit 3 x 4; last: "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find(" attempt 2, exit 3\n"), std::string::npos) << shown.out;
}

TEST_F(RunCommandTest, BadPlaceholderIsRejectedBeforeAnythingIsRecorded) {
  Result result = run(run_args("work {frist}", 2, 1));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: command template 'work {frist}': unknown placeholder {frist}"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
}

TEST_F(RunCommandTest, ANewRunUnderATakenNameIsRefusedBeforeAnythingRunsAndAResumeAndUnnamedRunsStillWork) {
  const std::string marker = (dir / "ran").string();
  std::vector<std::string> args = run_args("echo {first} >> " + marker, 2, 1);
  args.insert(args.end(), {"--name", "nightly"});
  ASSERT_EQ(run(args).exit_code, 0);
  ASSERT_EQ(lines_of(read_text(marker)).size(), 2u);
  Result again = run(args);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("millrace: " + store + ": a run named 'nightly' is already in this store (run 1): give the "
                           "new run another --name"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(lines_of(read_text(marker)).size(), 2u);  // nothing ran
  EXPECT_EQ(data::TraceStore::open(store).runs().size(), 1u);
  Result resumed = run({"run", "--store", store, "--resume", "nightly"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  // Unnamed runs take the default name, numbered when it is taken.
  ASSERT_EQ(run(run_args("true", 2, 1)).exit_code, 0);
  ASSERT_EQ(run(run_args("true", 2, 1)).exit_code, 0);
  data::TraceStore s = data::TraceStore::open(store);
  EXPECT_EQ(s.run(2).name, "run");
  EXPECT_EQ(s.run(3).name, "run (2)");
}

// Two workers, but each item asks for the whole CPU budget: the second waits for the first.
TEST_F(RunCommandTest, ItemsRequestingTheWholeBudgetNeverOverlap) {
  std::vector<std::string> args = run_args("sleep 0.2", 3, 2);
  args.insert(args.end(), {"--request", "cpu=2,memory=1Gi", "--local-capacity", "cpu=2,memory=4Gi"});
  Result result = run(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  data::TraceStore trace = data::TraceStore::open(store);
  std::vector<data::Attempt> attempts = trace.attempts(1);
  ASSERT_EQ(attempts.size(), 3u);
  std::sort(attempts.begin(), attempts.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (std::size_t i = 1; i < attempts.size(); ++i) {
    EXPECT_GE(attempts[i].start, attempts[i - 1].end) << attempts[i].item_id << " started before "
                                                      << attempts[i - 1].item_id << " ended";
  }
  for (const data::WorkItem& item : trace.items(1)) {
    EXPECT_EQ(item.requests, (data::Quantities{{"cpu", 2000}, {"memory", 1024LL * 1024 * 1024 * 1000}}));
  }
}

// A JSON plan's request.NAME fields become the items' requests; --request adds what a range
// does not name.
TEST_F(RunCommandTest, ListedRangesRunWithTheirOwnRequests) {
  const std::string plan = (dir / "plan.json").string();
  std::ofstream(plan) << R"({"ranges": [{"first": 0, "count": 10, "request.cpu": "2"},
                                       {"first": 10, "count": 10, "request.cpu": "500m"}]})";
  Result result = run({"run", "--cluster", "local", "--store", store, "--ranges", plan, "--workers", "2",
                       "--request", "cpu=1,memory=1Mi", "--local-capacity", "cpu=2,memory=1Gi", "--command", "true"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, data::Quantities> requests;
  for (const data::WorkItem& item : data::TraceStore::open(store).items(1)) requests[item.id] = item.requests;
  EXPECT_EQ(requests["0-9"], (data::Quantities{{"cpu", 2000}, {"memory", 1024LL * 1024 * 1000}}));
  EXPECT_EQ(requests["10-19"], (data::Quantities{{"cpu", 500}, {"memory", 1024LL * 1024 * 1000}}));
}

TEST_F(RunCommandTest, AnItemLargerThanTheMachineIsRefusedNamingItBeforeAnythingIsRecorded) {
  std::vector<std::string> args = run_args("true", 2, 2);
  args.insert(args.end(), {"--request", "cpu=3", "--local-capacity", "cpu=2,memory=4Gi"});
  Result result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: item '0-9': requests cpu 3, more than this machine has for attempts (cpu 2, "
                            "memory 4Gi, --local-capacity): short of cpu, it could never start"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
  args = run_args("true", 2, 2);
  args.insert(args.end(), {"--request", "nvidia.com/gpu=1"});  // this machine's CPUs and memory
  result = run(args);
  EXPECT_NE(result.err.find("short of nvidia.com/gpu, it could never start"), std::string::npos) << result.err;
  args = run_args("true", 2, 2);
  args.insert(args.end(), {"--local-capacity", "cpu=two"});
  result = run(args);
  EXPECT_NE(result.err.find("--local-capacity: cpu: quantity 'two'"), std::string::npos) << result.err;
  args = run_args("true", 2, 2);
  args.insert(args.end(), {"--node-pools", "pools.csv"});
  result = run(args);
  EXPECT_NE(result.err.find("--node-pools pools.csv: declares a Kubernetes cluster's pools"), std::string::npos) << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
}

TEST_F(RunCommandTest, WorkerPoolModeOnTheLocalClusterIsRefusedBeforeAnythingIsRecorded) {
  std::vector<std::string> args = run_args("true", 2, 1);
  args.insert(args.end(), {"--mode", "worker-pool"});
  Result result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: --mode worker-pool: applies to --cluster kubernetes only"), std::string::npos)
      << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
}

// The real run's report is its summary as `show` prints it for the stored run, failed attempts
// and the straggler tail included: one summary for recorded, simulated and real runs.
TEST_F(RunCommandTest, TheReportOfARealRunIsTheSummaryShowPrintsOfIt) {
  Result result = run(run_args("sleep 0.05; test {attempt} -gt 1 || test {first} -ne 0 || exit 3", 6, 2));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string done = "run 1: 6/6 items succeeded\n";
  const std::size_t at = result.out.find(done);
  ASSERT_NE(at, std::string::npos) << result.out;
  const std::string report = result.out.substr(at + done.size());
  Result shown = run({"show", "--store", store, "1"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(report, shown.out);
  EXPECT_NE(report.find("  attempts:       7 (1 failed or cancelled)"), std::string::npos) << report;
  EXPECT_NE(report.find("  tail: last attempt alone"), std::string::npos) << report;
}

// A team's own range list runs as listed: the ranges of the file, in END/COUNT form here (LAST/COUNT:
// 100/100 is units 1..100), are the run's items, with the file named as the run's partitioner.
TEST_F(RunCommandTest, ARangesFileRunsItsRangesAsListed) {
  const std::string listed = (dir / "theirs.txt").string();
  std::ofstream(listed) << "# our generator's cut\n100/100\n130/30\n135/5\n";
  const std::string marker = (dir / "done").string();
  Result result = run({"run", "--store", store, "--ranges", listed, "--workers", "2", "--command",
                       "echo {first} {count} >> " + marker});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("run 1: 3/3 items succeeded"), std::string::npos) << result.out;
  data::TraceStore trace = data::TraceStore::open(store);
  EXPECT_EQ(trace.run(1).partitioner, "ranges file " + listed);
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (const data::WorkItem& item : trace.items(1)) ranges.emplace_back(item.range->first, item.range->count);
  std::sort(ranges.begin(), ranges.end());
  EXPECT_EQ(ranges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 100}, {101, 30}, {131, 5}}));
  std::vector<std::string> lines = lines_of(read_text(marker));
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"1 100", "101 30", "131 5"}));
}

// A ranges file's order is its plan order: one worker runs a newest-first file newest first.
TEST_F(RunCommandTest, ARangesFileRunsInItsOwnOrder) {
  const std::string listed = (dir / "newest-first.txt").string();
  std::ofstream(listed) << "135/5\n130/30\n100/100\n";
  const std::string marker = (dir / "done").string();
  Result result = run({"run", "--store", store, "--ranges", listed, "--command", "echo {first} {count} >> " + marker});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines_of(read_text(marker)), (std::vector<std::string>{"131 5", "101 30", "1 100"}));
  std::vector<std::string> ids;
  for (const data::WorkItem& item : data::TraceStore::open(store).items(1)) ids.push_back(item.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"131-135", "101-130", "1-100"}));
}

// --order hands the ranges out as compare's orders do; the run keeps its order over a resume,
// and a resume asking for another is refused before anything runs.
TEST_F(RunCommandTest, TipFirstOrderIsKeptByAResumeAndAnotherOrderIsRefused) {
  const std::string started = (dir / "started").string();
  const std::string go = (dir / "go").string();
  const std::string command = "echo {first} >> " + started + "; test -e " + go + " || sleep 30";
  std::vector<std::string> args = run_args(command, 5, 1);
  args.insert(args.end(), {"--order", "tip-first"});
  pid_t pid = start(args);
  for (int i = 0; i < 3000 && lines_of(read_text(started)).empty(); ++i) usleep(10'000);
  ASSERT_EQ(lines_of(read_text(started)), (std::vector<std::string>{"40"}));
  kill(pid, SIGINT);
  ASSERT_EQ(finish(pid).exit_code, 1);

  Result other = run({"run", "--store", store, "--resume", "1", "--order", "plan"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("millrace: run 1: hands out its ranges in tip-first order, which a resume keeps: drop "
                           "--order plan"),
            std::string::npos)
      << other.err;
  EXPECT_EQ(lines_of(read_text(started)).size(), 1u);  // nothing ran

  std::ofstream(go) << "go";
  Result resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(lines_of(read_text(started)), (std::vector<std::string>{"40", "40", "30", "20", "10", "0"}));
}

TEST_F(RunCommandTest, LongestFirstWithoutAModelIsRefusedBeforeAnythingIsRecorded) {
  std::vector<std::string> args = run_args("true", 4, 1);
  args.insert(args.end(), {"--order", "lpt"});
  Result result = run(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: --order lpt: hands out the longest predicted ranges first: give the cost model "
                            "(--model)"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(store));
  Result unknown = run({"run", "--store", store, "--span", "0:9", "--partitioner", "uniform", "--order", "random"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("--order"), std::string::npos) << unknown.err;
}

TEST_F(RunCommandTest, ABadRangesFileOrOneGivenWithASpanIsRefusedBeforeAnythingIsRecorded) {
  const std::string gap = (dir / "gap.txt").string();
  std::ofstream(gap) << "100/100\n140/30\n";
  Result result = run({"run", "--store", store, "--ranges", gap, "--command", "true"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("millrace: " + gap + ":"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("gap"), std::string::npos) << result.err;

  result = run({"run", "--store", store, "--ranges", gap, "--span", "0:9", "--command", "true"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--ranges excludes --span"), std::string::npos) << result.err;
  EXPECT_TRUE(data::TraceStore::open(store).runs().empty());
}

TEST_F(RunCommandTest, ResumingAnUnknownRunNamesIt) {
  Result result = run({"run", "--store", store, "--resume", "7"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("7"), std::string::npos) << result.err;
}

TEST_F(RunCommandTest, SigintCancelsOnlyInFlightAttemptsAndResumeGivesQueuedItemsTheirFirstAttempt) {
  std::string started = (dir / "started").string();
  std::string go = (dir / "go").string();
  std::vector<std::string> args = run_args("echo {id} >> " + started + "; test -e " + go + " || sleep 30", 4, 2);
  args.insert(args.end(), {"--max-attempts", "1"});
  pid_t pid = start(args);
  for (int i = 0; i < 3000 && lines_of(read_text(started)).size() < 2; ++i) usleep(10'000);
  ASSERT_EQ(lines_of(read_text(started)).size(), 2u);
  kill(pid, SIGINT);
  Result result = finish(pid);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("interrupted with 4 items not succeeded"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("--resume 1"), std::string::npos) << result.err;
  // The two running attempts were killed and recorded; the queued items were not submitted.
  std::vector<data::Attempt> attempts = data::TraceStore::open(store).attempts(1);
  ASSERT_EQ(attempts.size(), 2u);
  for (const data::Attempt& a : attempts) {
    EXPECT_EQ(a.outcome, data::Outcome::kCancelled);
    EXPECT_EQ(a.failure_reason, "cancelled");
    EXPECT_GT(a.duration(), 0) << a.item_id;
  }
  EXPECT_EQ(lines_of(read_text(started)).size(), 2u);

  // Even with one attempt per item, the cancelled items run again, and the others run first time.
  std::ofstream(go) << "go";
  Result resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(successes().size(), 4u);
  for (const data::Attempt& a : data::TraceStore::open(store).attempts(1)) {
    if (a.outcome != data::Outcome::kSucceeded) continue;
    bool was_cancelled = std::any_of(attempts.begin(), attempts.end(), [&](const data::Attempt& c) { return c.item_id == a.item_id; });
    EXPECT_EQ(a.number, was_cancelled ? 2 : 1) << a.item_id;
  }
}

// A resume used to ignore --workers and --command silently. A changed --command is refused
// naming both commands, before anything runs (the recorded attempts ran the first one);
// --workers applies to the resumed session, which says so, and --status-port serves it.
TEST_F(RunCommandTest, ResumeRefusesAChangedCommandAndAppliesWorkersAndTheStatusPort) {
  const std::string started = (dir / "started").string();
  const std::string go = (dir / "go").string();
  const std::string command = "echo {id} {worker} >> " + started + "; test -e " + go + " || sleep 30; sleep 0.3";
  interrupt_first_range(command, started);
  if (HasFatalFailure()) return;

  Result changed = run({"run", "--store", store, "--resume", "1", "--command", "echo other {id}"});
  EXPECT_EQ(changed.exit_code, 1);
  EXPECT_NE(changed.err.find("millrace: --command 'echo other {id}': differs from the command the run was started "
                             "with, '" + command.substr(0, 80)),
            std::string::npos)
      << changed.err;
  EXPECT_NE(changed.err.find("drop --command, or start a new run to change it"), std::string::npos) << changed.err;
  EXPECT_EQ(lines_of(read_text(started)).size(), 1u);  // nothing ran

  std::ofstream(go) << "go";
  Result resumed = run({"run", "--store", store, "--resume", "1", "--command", command, "--workers", "3",
                        "--status-port", "0"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("millrace: run 1: --workers 3 applies to this session (the run was started with 1, "
                             "which a resume without --workers keeps)"),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find("millrace: status on http://127.0.0.1:"), std::string::npos) << resumed.err;
  EXPECT_EQ(successes().size(), 6u);
  std::set<std::string> slots;
  for (const std::string& line : lines_of(read_text(started))) slots.insert(line.substr(line.find(' ') + 1));
  EXPECT_EQ(slots, (std::set<std::string>{"w000", "w001", "w002"}));  // three at once after the resume
}

// run --resume accepted --span, --range-count, --timeout and --max-attempts and ignored them (it
// finished the original 6 ranges over 0:59 when asked for 3 over 0:9): every option a resumed
// run cannot honour is refused by name before anything runs.
TEST_F(RunCommandTest, AResumeRefusesByNameEveryOptionItWouldIgnore) {
  const std::string started = (dir / "started").string();
  const std::string go = (dir / "go").string();
  const std::string command = "echo {id} >> " + started + "; test -e " + go + " || sleep 30";
  interrupt_first_range(command, started);
  if (HasFatalFailure()) return;

  const std::vector<std::vector<std::string>> ignored = {
      {"--span", "0:9"}, {"--range-count", "3"}, {"--timeout", "5"}, {"--max-attempts", "5"},
      {"--partitioner", "logarithmic"}, {"--name", "other"}, {"--cluster", "local"}, {"--backoff", "2"}};
  for (const std::vector<std::string>& option : ignored) {
    std::vector<std::string> args = {"run", "--store", store, "--resume", "1"};
    args.insert(args.end(), option.begin(), option.end());
    Result refused = run(args);
    EXPECT_EQ(refused.exit_code, 1) << option[0];
    EXPECT_NE(refused.err.find("millrace: " + option[0] + ": a resumed run keeps what it was started with (its span, "
                               "ranges, limits and cluster settings, kept in the store), so this would be ignored: "
                               "drop " + option[0] + ", or start a new run to change it (--resume takes "
                               "--command, --context, --kubeconfig, --leftover-wait, --leftovers, --order, "
                               "--status-port, --workers)"),
              std::string::npos)
        << refused.err;
  }
  EXPECT_EQ(lines_of(read_text(started)).size(), 1u);  // nothing ran

  std::ofstream(go) << "go";
  Result resumed = run({"run", "--store", store, "--resume", "1", "--command", command, "--workers", "2"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(successes().size(), 6u);  // the run's own 6 ranges
}

TEST_F(RunCommandTest, SigkillThenResumeLosesNothingAndDoesNotRerunCompletedItems) {
  std::string done = (dir / "done").string();
  pid_t pid = start(run_args("sleep 0.2; echo {id} >> " + done, 12, 2));
  for (int i = 0; i < 3000 && successes().size() < 4; ++i) usleep(10'000);
  kill(pid, SIGKILL);
  EXPECT_EQ(finish(pid).exit_code, 128 + SIGKILL);
  std::map<std::string, int> before = successes();
  ASSERT_GE(before.size(), 4u);
  ASSERT_LT(before.size(), 12u);

  Result resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::map<std::string, int> after = successes();
  EXPECT_EQ(after.size(), 12u);
  for (const auto& [item, count] : after) EXPECT_EQ(count, 1) << item;
  std::map<std::string, int> runs_of;
  for (const std::string& line : lines_of(read_text(done))) ++runs_of[line];
  for (const auto& [item, count] : before) EXPECT_EQ(runs_of[item], 1) << item << " ran again after resume";
  EXPECT_EQ(runs_of.size(), 12u);
}

TEST_F(RunCommandTest, RecordedTimingsReplayedInTheSimulatorGiveTheRealMakespanWithinFivePercent) {
  // Ranges sleep 0.2 s to 0.9 s by position, so the schedule on 3 workers is uneven.
  Result result = run(run_args("sleep 0.$(( {first} / 10 + 2 ))", 8, 3));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  data::TraceStore trace = data::TraceStore::open(store);
  std::vector<data::WorkItem> items = trace.items(1);
  std::vector<data::Attempt> attempts = trace.attempts(1);
  data::Micros first_start = attempts.front().start;
  data::Micros last_end = 0;
  for (const data::Attempt& a : attempts) {
    first_start = std::min(first_start, a.start);
    last_end = std::max(last_end, a.end);
  }
  data::Micros real = last_end - first_start;

  sim::SimulationConfig config;
  config.cluster.slots_per_node = 3;
  config.scheduler.policy = "fixed-pool";
  config.scheduler.params.workers = 3;
  sim::SimulationResult replay =
      sim::simulate(items, sim::table_model(sim::recorded_durations(items, attempts, "run 1"), "run 1"), config);
  EXPECT_EQ(replay.succeeded, 8u);
  EXPECT_NEAR(static_cast<double>(replay.makespan), static_cast<double>(real), 0.05 * static_cast<double>(real))
      << "replayed " << replay.makespan << " us, real " << real << " us";
}

}  // namespace
}  // namespace millrace
