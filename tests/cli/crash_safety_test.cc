// End-to-end, with the real binary: a run owns its processes and its store. A millrace
// SIGKILLed while attempts are in flight (their workers forking long-lived children, some in
// new sessions), then resumed, never has a range running in two processes at once, over many
// seeded kill moments; a run is owned by one live millrace (a resume beside it is refused, a
// dead or silent owner is taken over); readers are never blocked by a writer and read read-only
// stores; a live run outlasts a 40 s write lock held by another process without losing an
// attempt, and shows the records it keeps in memory meanwhile in /status and /metrics; a run
// completes, and serves /status, while 1,000 idle connections crowd its status port.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_process.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/store_query.h"
#include "tests/support/idle_connections.h"

namespace millrace {
namespace {

namespace fs = std::filesystem;

using cli_test::CliResult;
using cli_test::lines_of;
using cli_test::process_runs;
using cli_test::read_text;

std::string host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// The worker of tests/cli/range_lock_worker.sh (shared with bench/crash_resume_probe.sh): the
// range's work in a child, in a new session for every other range, holding the range's flock;
// a second process on the same range at the same time writes DIR/doubles.
void prepare_worker_dir(const fs::path& dir) { fs::create_directories(dir / "locks"); }
const std::string kWorker = std::string(MILLRACE_SOURCE_DIR) + "/tests/cli/range_lock_worker.sh";

// Holds the store's write lock (BEGIN IMMEDIATE) from another process for `seconds`.
class StoreLockHolder {
 public:
  StoreLockHolder(const std::string& store, int seconds) {
    int ready[2];
    if (pipe(ready) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      sqlite3* db = nullptr;
      if (sqlite3_open(store.c_str(), &db) != SQLITE_OK) _exit(2);
      sqlite3_busy_timeout(db, 60'000);
      if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) _exit(3);
      if (write(ready[1], "x", 1) != 1) _exit(4);
      sleep(static_cast<unsigned>(seconds));
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(db);
      _exit(0);
    }
    close(ready[1]);
    char byte = 0;
    locked_ = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
  }
  ~StoreLockHolder() {
    if (pid_ <= 0) return;  // never kill(-1, ...): that is every process
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  bool locked() const { return locked_; }
  // Waits for the holder to release the lock by itself; its exit code.
  int wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  bool locked_ = false;
};

class CrashSafetyTest : public cli_test::CliRunTest {
 protected:
  // The status port the run printed on stderr (0 until it did).
  int status_port() {
    const std::string marker = "status on http://127.0.0.1:";
    for (int i = 0; i < 3000; ++i) {
      const std::string err = read_text(dir / "stderr");
      // The whole line: stderr may hold its first part before the port is written.
      if (std::size_t at = err.find(marker); at != std::string::npos && err.find('\n', at) != std::string::npos) {
        return std::atoi(err.c_str() + at + marker.size());
      }
      usleep(10'000);
    }
    return 0;
  }
  // Waits until `path` exists (a worker started), up to 30 s.
  static bool wait_for(const fs::path& path) {
    for (int i = 0; i < 3000 && !fs::exists(path); ++i) usleep(10'000);
    return fs::exists(path);
  }
  // Runs `script` with sh in a private mount namespace (its mounts disappear with it), its
  // output in DIR/mount.out and DIR/mount.err; its exit code (127: no unshare).
  int in_mount_namespace(const std::string& script) {
    pid_t pid = fork();
    if (pid == 0) {
      if (!freopen((dir / "mount.out").c_str(), "w", stdout) || !freopen((dir / "mount.err").c_str(), "w", stderr)) {
        _exit(126);
      }
      execlp("unshare", "unshare", "-m", "sh", "-c", script.c_str(), nullptr);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // Rows of a query on the store (first column, as text).
  std::vector<std::string> query(const std::string& sql) { return cli_test::query_store(store, sql); }
};

TEST_F(CrashSafetyTest, NoRangeEverRunsInTwoProcessesAcrossSeededKillsAndResumesThatEndOrAwaitLeftovers) {
  constexpr int kRounds = 8;
  constexpr int kRanges = 12;
  std::mt19937 draws(20'261'203);  // the kill moments; mt19937's sequence is the same everywhere
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const fs::path work = dir / ("round" + std::to_string(round));
    prepare_worker_dir(work);
    store = (work / "trace.db").string();
    const std::string command = "sh " + kWorker + " " + work.string() + " {id} {first} 0.4";
    pid_t pid = start(run_args(command, kRanges, 4));
    // Killed while attempts are in flight: after the first worker took its lock.
    ASSERT_TRUE(wait_for(work / "locks" / "0-9"));
    usleep(static_cast<useconds_t>(draws() % 1200) * 1000);
    kill(pid, SIGKILL);
    ASSERT_EQ(finish(pid).exit_code, 128 + SIGKILL);

    // Every other round, the resume waits for the leftovers instead of ending them.
    const std::string leftovers = round % 2 == 0 ? "end" : "wait";
    CliResult resumed = run({"run", "--store", store, "--resume", "1", "--leftovers", leftovers});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("taking over from millrace pid " + std::to_string(pid)), std::string::npos)
        << resumed.err;
    EXPECT_FALSE(fs::exists(work / "doubles")) << read_text(work / "doubles");
    std::map<std::string, int> succeeded = successes();
    EXPECT_EQ(succeeded.size(), static_cast<std::size_t>(kRanges));
    for (const auto& [item, count] : succeeded) EXPECT_EQ(count, 1) << item;
    // Every range's work finished at least once, and nothing of the run is left running.
    std::map<std::string, int> done;
    for (const std::string& line : lines_of(read_text(work / "done"))) ++done[line];
    EXPECT_EQ(done.size(), static_cast<std::size_t>(kRanges));
    EXPECT_EQ(query("SELECT count(*) FROM run_sessions WHERE state = 'live'"), std::vector<std::string>{"0"});
    EXPECT_EQ(query("SELECT count(*) FROM attempt_trees"), std::vector<std::string>{"0"});
  }
}

TEST_F(CrashSafetyTest, ResumeBesideALiveOwnerIsRefusedNamingIt) {
  const fs::path started = dir / "started";
  pid_t owner = start(run_args("touch " + started.string() + "; sleep 2", 2, 2));
  ASSERT_TRUE(wait_for(started));
  CliResult refused = run({"run", "--store", store, "--resume", "1"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("run 1: is owned by a live millrace: pid " + std::to_string(owner) + " on host " + host() +
                             ", since 20"),
            std::string::npos)
      << refused.err;
  CliResult first = finish(owner);
  EXPECT_EQ(first.exit_code, 0) << first.err;
  std::map<std::string, int> succeeded = successes();
  EXPECT_EQ(succeeded.size(), 2u);
  for (const auto& [item, count] : succeeded) EXPECT_EQ(count, 1) << item;
  // Once it ended, the run is free again.
  CliResult again = run({"run", "--store", store, "--resume", "1"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("taking over"), std::string::npos) << again.err;
}

TEST_F(CrashSafetyTest, ALeaseWhoseOwnerIsGoneIsTakenOverAndItsProcessesEnded) {
  const fs::path pids = dir / "pids";
  // Each first attempt leaves a setsid'd child running; later attempts end at once.
  pid_t owner = start(run_args("if [ {attempt} -eq 1 ]; then setsid sh -c 'echo $$ >> " + pids.string() +
                                   "; exec sleep 300' & wait; fi",
                               2, 2));
  for (int i = 0; i < 3000 && lines_of(read_text(pids)).size() < 2; ++i) usleep(10'000);
  ASSERT_EQ(lines_of(read_text(pids)).size(), 2u);
  kill(owner, SIGKILL);
  finish(owner);
  std::vector<pid_t> left;
  for (const std::string& line : lines_of(read_text(pids))) left.push_back(std::stoi(line));
  for (pid_t pid : left) ASSERT_TRUE(process_runs(pid)) << "the setsid'd child outlived its millrace";

  CliResult resumed = run({"run", "--store", store, "--resume", "1"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("run 1: taking over from millrace pid " + std::to_string(owner) + " on " + host() +
                             " (session 1, since "),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find("): its process is gone"), std::string::npos) << resumed.err;
  // Per attempt: its recorder, the subshell running the command and the setsid'd sleep.
  EXPECT_NE(resumed.err.find("ended 6 processes left running by session 1 (pid " + std::to_string(owner) +
                             "); of 2 attempts it left unfinished, 0 ended by themselves (recorded with their exit "
                             "status), 2 recorded as cancelled (session-lost)"),
            std::string::npos)
      << resumed.err;
  // The dead session's attempts are on record as cancelled, the new ones are attempt 2.
  EXPECT_EQ(query("SELECT count(*) FROM attempts WHERE failure_reason = 'session-lost' AND number = 1"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(query("SELECT count(*) FROM attempts WHERE outcome = 'succeeded' AND number = 2"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(query("SELECT group_concat(state) FROM (SELECT state FROM run_sessions ORDER BY session)"),
            std::vector<std::string>{"swept,ended"});
  for (pid_t pid : left) EXPECT_FALSE(process_runs(pid)) << pid << " still runs";
}

TEST_F(CrashSafetyTest, ALeaseFromAnotherHostIsHeldWhileItsHeartbeatIsFreshAndTakenOverOnceItExpired) {
  ASSERT_EQ(run(run_args("true", 2, 1)).exit_code, 0);
  auto now_us = [] {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  auto add_session = [&](int session, std::int64_t heartbeat) {
    sqlite3* db = nullptr;
    sqlite3_open(store.c_str(), &db);
    std::string sql = "INSERT INTO run_sessions VALUES (1, " + std::to_string(session) +
                      ", 'elsewhere', 4242, 7, 'other-boot', '', '', " + std::to_string(heartbeat) + ", " +
                      std::to_string(heartbeat) + ", 'live')";
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  };
  add_session(2, now_us());
  CliResult refused = run({"run", "--store", store, "--resume", "1"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("is owned by a live millrace: pid 4242 on host elsewhere"), std::string::npos) << refused.err;

  sqlite3* db = nullptr;
  sqlite3_open(store.c_str(), &db);
  sqlite3_exec(db, "DELETE FROM run_sessions WHERE session = 2", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  add_session(2, now_us() - 600 * 1'000'000LL);
  CliResult taken = run({"run", "--store", store, "--resume", "1"});
  EXPECT_EQ(taken.exit_code, 0) << taken.err;
  EXPECT_NE(taken.err.find("taking over from millrace pid 4242 on elsewhere (session 2, since "), std::string::npos)
      << taken.err;
  EXPECT_NE(taken.err.find("its heartbeat is 600 s old"), std::string::npos) << taken.err;
  EXPECT_NE(taken.err.find("what it left running there cannot be ended from here"), std::string::npos) << taken.err;
}

TEST_F(CrashSafetyTest, ReadersDoNotWaitForAnotherProcessHoldingTheWriteLock) {
  ASSERT_EQ(run(run_args("true", 3, 1)).exit_code, 0);
  StoreLockHolder lock(store, 120);
  ASSERT_TRUE(lock.locked());
  CliResult runs = run({"runs", "--store", store});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("real"), std::string::npos) << runs.out;
  CliResult show = run({"show", "--store", store, "1"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  CliResult exported = run({"export", "--store", store, "1", "--format", "csv", "-o", (dir / "out.csv").string()});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(lines_of(read_text(dir / "out.csv")).size(), 4u);  // header and 3 ranges
}

TEST_F(CrashSafetyTest, AReadOnlyStoreFileIsReadWithoutBeingChanged) {
  ASSERT_EQ(run(run_args("true", 3, 1)).exit_code, 0);
  const std::string before = read_text(store);
  fs::permissions(store, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  CliResult runs = run({"runs", "--store", store});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  CliResult show = run({"show", "--store", store, "1"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(read_text(store), before);
  fs::permissions(store, fs::perms::owner_all);
}

// compare on a full disk said "unreadable or corrupt store (... disk I/O error)": SQLite's
// WAL index cannot be created there, an I/O error whose cause is ENOSPC. The store on a 1 MiB
// tmpfs filled to the last block: compare and runs say the disk is full, naming the store, and
// the store itself is left as it was.
TEST_F(CrashSafetyTest, AStoreOnAFullDiskIsSaidToBeOnAFullDisk) {
  ASSERT_EQ(run(run_args("true", 3, 1)).exit_code, 0);
  const fs::path model = dir / "model.json";
  std::ofstream(model) << R"({"format": "millrace-cost-model", "version": 1, "units": "units", "source": "test",
                              "bins": [{"first": 0, "count": 30, "startup_micros": 1000.0, "micros_per_unit": 10.0}]})";
  const fs::path full = dir / "full";
  fs::create_directories(full);
  const std::string full_store = "'" + (full / "trace.db").string() + "'";
  const std::string script = "mount -t tmpfs -o size=1m tmpfs '" + full.string() + "' || exit 99; cp '" + store +
                             "' " + full_store + " && cmp -s '" + store + "' " + full_store + " || exit 98; dd if=/dev/zero of='" +
                             full.string() + "/fill' bs=4k 2>/dev/null; " + MILLRACE_CLI + " compare --store " +
                             full_store + " --model '" + model.string() + "' --span 0:29 --workers 1,2; echo compare $?; " +
                             MILLRACE_CLI + " runs --store " + full_store + "; echo runs $?; cmp '" + store + "' " +
                             full_store + " && echo unchanged";
  const int code = in_mount_namespace(script);
  const std::string err = read_text(dir / "mount.err");
  if (code == 99 || code == 127) GTEST_SKIP() << "no tmpfs mount here (needs CAP_SYS_ADMIN): " << err;
  ASSERT_NE(code, 98) << err;
  const std::string full_message = "millrace: " + (full / "trace.db").string() +
                                   ": disk is full (cannot prepare statement: disk I/O error); free space where the "
                                   "store is and run the command again\n";
  EXPECT_EQ(err, full_message + full_message);
  EXPECT_EQ(read_text(dir / "mount.out"), "compare 1\nruns 1\nunchanged\n");
}

TEST_F(CrashSafetyTest, AStoreOnAReadOnlyMountIsReadable) {
  ASSERT_EQ(run(run_args("true", 3, 1)).exit_code, 0);
  const fs::path view = dir / "ro";
  fs::create_directories(view);
  // A private mount namespace: the read-only bind mount disappears with the shell.
  const std::string ro_store = "'" + (view / "trace.db").string() + "'";
  std::ofstream(dir / "t.csv") << "item,worker,duration_s\na,w,1\n";
  const std::string script = "mount --bind '" + dir.string() + "' '" + view.string() + "' && mount -o remount,bind,ro '" +
                             view.string() + "' || exit 99; touch '" + view.string() + "/probe' 2>/dev/null && exit 98; " +
                             MILLRACE_CLI + " runs --store " + ro_store + " && " + MILLRACE_CLI + " show --store " +
                             ro_store + " 1 || exit 1; " + MILLRACE_CLI + " import --store " + ro_store +
                             " --format csv '" + (dir / "t.csv").string() + "' && exit 2; exit 0";
  const int code = in_mount_namespace(script);
  const std::string err = read_text(dir / "mount.err");
  if (code == 99 || code == 127) GTEST_SKIP() << "no read-only bind mount here (needs CAP_SYS_ADMIN): " << err;
  ASSERT_NE(code, 98) << "the bind mount is not read-only";
  EXPECT_EQ(code, 0) << err;
  EXPECT_NE(read_text(dir / "mount.out").find("real"), std::string::npos) << read_text(dir / "mount.out");
  // import said "corrupt" here: a writer is told the store is read-only.
  EXPECT_EQ(err, "millrace: " + (view / "trace.db").string() +
                     ": read-only store (on a read-only filesystem): this command writes to it; commands that only "
                     "read it (runs, show, export, fit) work as they are\n");
}

// A store in a read-only directory (its WAL side files cannot be made there) read as
// "unreadable or corrupt store (... unable to open database file)" for runs, show and fit: they
// read it, and a writer says the store is read-only. As another user than root (root writes
// anywhere): `setpriv` to nobody when the test runs as root.
TEST_F(CrashSafetyTest, AStoreInAReadOnlyDirectoryIsReadAndWritersAreToldItIsReadOnly) {
  ASSERT_EQ(run(run_args("true", 12, 2)).exit_code, 0);
  const fs::path ro = dir / "ro";
  const fs::path out = dir / "out";
  fs::create_directories(ro);
  fs::create_directories(out);
  fs::copy_file(store, ro / "trace.db");
  const std::string before = read_text(ro / "trace.db");
  const auto all = fs::perms::all;
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  fs::permissions(out, all);
  // The store file is its user's to write; only the directory is read-only.
  const bool root = geteuid() == 0;
  if (root) {
    ASSERT_EQ(::chown((ro / "trace.db").c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chown(ro.c_str(), 65534, 65534), 0);
  }
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec);
  const std::string as_user = root ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const std::string ro_store = (ro / "trace.db").string();
  const auto cli = [&](const std::string& args) { return test_support::run_cli(args, as_user); };
  const test_support::CommandResult runs = cli("runs --store " + ro_store);
  EXPECT_EQ(runs.exit_code, 0) << runs.output;
  const test_support::CommandResult show = cli("show --store " + ro_store + " 1");
  EXPECT_EQ(show.exit_code, 0) << show.output;
  const test_support::CommandResult fit = cli("fit --store " + ro_store + " --runs 1 -o " + (out / "model.json").string());
  EXPECT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_TRUE(fs::exists(out / "model.json"));
  std::ofstream(out / "t.csv") << "item,worker,duration_s\na,w,1\n";
  const test_support::CommandResult import =
      cli("import --store " + ro_store + " --format csv " + (out / "t.csv").string());
  EXPECT_EQ(import.exit_code, 1);
  EXPECT_EQ(import.output, "millrace: " + ro_store + ": read-only store (its directory " + ro.string() +
                               " is not writable (a store being written needs its -wal and -shm files beside it)): "
                               "this command writes to it; commands that only read it (runs, show, export, fit) work "
                               "as they are\n");
  EXPECT_EQ(read_text(ro / "trace.db"), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(ro), fs::directory_iterator()), 1);  // no side files made
  fs::permissions(ro, all);
}

// A recording of `ranges` ranges of varying length (so a fit keeps a bin for each) as a timing
// CSV, imported into the store as run "big".
void import_big_run(const std::string& store, const fs::path& dir, int ranges) {
  std::ofstream csv(dir / "big.csv");
  csv << "first,count,worker,start_s,end_s\n";
  std::int64_t first = 0;
  double at = 0;
  for (int i = 0; i < ranges; ++i) {
    const int count = 10 + (i * 7919) % 97;
    const double duration = 0.001 * count * (1 + (i % 13) / 10.0);
    csv << first << "," << count << ",w" << i % 8 << "," << at << "," << at + duration << "\n";
    first += count;
    at += duration / 8;
  }
  csv.close();
  const CliResult imported =
      cli_test::finish_cli(dir, cli_test::start_cli(dir, {"import", "--store", store, "--format", "csv", "--name", "big",
                                                          (dir / "big.csv").string()}));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
}

// Starts the CLI with `args` and SIGKILLs it the moment it holds a file in `folder` open for
// writing; false when it ended before it was seen to.
bool killed_while_writing(const fs::path& dir, const std::vector<std::string>& args, const fs::path& folder) {
  const pid_t pid = cli_test::start_cli(dir, args);
  const std::string inside = folder.string() + "/";
  const fs::path fds = "/proc/" + std::to_string(pid) + "/fd";
  while (process_runs(pid)) {
    std::error_code gone;
    for (const auto& fd : fs::directory_iterator(fds, gone)) {
      const std::string target = fs::read_symlink(fd.path(), gone).string();
      if (gone || target.rfind(inside, 0) != 0) continue;
      const std::string info = read_text("/proc/" + std::to_string(pid) + "/fdinfo/" + fd.path().filename().string());
      const std::size_t flags = info.find("flags:");
      if (flags == std::string::npos || (std::stoul(info.substr(flags + 6), nullptr, 8) & 3) == 0) continue;
      kill(pid, SIGKILL);
      cli_test::finish_cli(dir, pid);
      return true;
    }
  }
  cli_test::finish_cli(dir, pid);
  return false;
}

// `fit -o` opened the model with std::ofstream before its text existed: a SIGKILL while it wrote
// left the previous model as 0 bytes or a prefix of invalid JSON. Every file a command writes
// over (fit -o, export -o, partition -o) is killed with a real SIGKILL while it holds its output
// open for writing, and the file is then the old one or the new one (what an unkilled run
// writes), whole, with nothing left beside it.
TEST_F(CrashSafetyTest, AWriterKilledWhileWritingItsFileLeavesTheOldFileWhole) {
  import_big_run(store, dir, 5'000);
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const std::string old = "the previous file, which must survive\n";
  const struct {
    const char* file;
    std::vector<std::string> args;
  } writers[] = {
      {"model.json", {"fit", "--store", store, "--runs", "big", "-o", (out / "model.json").string()}},
      {"export.csv", {"export", "--store", store, "big", "-o", (out / "export.csv").string()}},
      {"export.json", {"export", "--store", store, "big", "--format", "json", "-o", (out / "export.json").string()}},
      {"ranges.csv",
       {"partition", "--span", "0:99999999", "--partitioner", "uniform", "--range-count", "500000", "-o",
        (out / "ranges.csv").string()}},
  };
  for (const auto& writer : writers) {
    const fs::path target = out / writer.file;
    ASSERT_EQ(cli_test::finish_cli(dir, cli_test::start_cli(dir, writer.args)).exit_code, 0) << writer.file;
    const std::string written = read_text(target);
    std::ofstream(target) << old;
    bool caught = false;
    for (int attempt = 0; attempt < 5 && !caught; ++attempt) caught = killed_while_writing(dir, writer.args, out);
    ASSERT_TRUE(caught) << writer.file << ": never seen writing";
    const std::string left = read_text(target);
    EXPECT_TRUE(left == old || left == written) << writer.file << ": " << left.size() << " bytes, neither the old "
                                                << old.size() << " nor the new " << written.size();
    EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1) << writer.file << ": left files";
    fs::remove(target);
  }
}

// A full disk while fit, export or partition writes: each says the disk is full, naming the
// file, and the old file stays as it was, with nothing left beside it. On a tmpfs filled to its
// last block, in a private mount namespace.
TEST_F(CrashSafetyTest, AWriterOnAFullDiskSaysSoAndLeavesTheOldFileWhole) {
  import_big_run(store, dir, 300);
  const fs::path full = dir / "full";
  fs::create_directories(full);
  const std::string f = full.string();
  const std::string cli = MILLRACE_CLI;
  const std::string script =
      "mount -t tmpfs -o size=1m tmpfs '" + f + "' || exit 99; for name in model.json export.csv ranges.csv; do "
      "echo old > '" + f + "'/$name; done; dd if=/dev/zero of='" + f + "/fill' bs=4k 2>/dev/null; " + cli +
      " fit --store '" + store + "' --runs big -o '" + f + "/model.json' > /dev/null; echo fit $?; " + cli +
      " export --store '" + store + "' big -o '" + f + "/export.csv'; echo export $?; " + cli +
      " partition --span 0:999 --range-count 10 -o '" + f + "/ranges.csv' 2> /dev/null; echo partition $?; "
      "cat '" + f + "/model.json' '" + f + "/export.csv' '" + f + "/ranges.csv'; ls -A '" + f + "'";
  const int code = in_mount_namespace(script);
  const std::string err = read_text(dir / "mount.err");
  if (code == 99 || code == 127) GTEST_SKIP() << "no tmpfs mount here (needs CAP_SYS_ADMIN): " << err;
  EXPECT_EQ(read_text(dir / "mount.out"),
            "fit 1\nexport 1\npartition 1\nold\nold\nold\nexport.csv\nfill\nmodel.json\nranges.csv\n");
  EXPECT_NE(err.find("millrace: " + f + "/model.json: cannot write: disk is full; the file is left as it was\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("millrace: " + f + "/export.csv: cannot write: disk is full; the file is left as it was\n"),
            std::string::npos)
      << err;
}

// One local process holding 500 idle connections made /status refuse connections: now 1,000
// are held from the first range to the run's end, /status answers meanwhile (the client's own
// 10 s timeouts are the only bound) and the run completes every range.
TEST_F(CrashSafetyTest, ARunCompletesAndServesStatusWhileAThousandIdleConnectionsAreHeld) {
  std::vector<std::string> args = run_args("sleep 0.3", 12, 2);
  args.insert(args.end(), {"--status-port", "0"});
  pid_t pid = start(args);
  const int port = status_port();
  ASSERT_GT(port, 0) << read_text(dir / "stderr");
  CliResult result;
  {
    test_support::IdleConnections crowd(port, 1000);
    EXPECT_EQ(crowd.connected(), 1000);
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(std::chrono::seconds(10));
    client.set_connection_timeout(std::chrono::seconds(10));
    auto status = client.Get("/status");
    ASSERT_TRUE(status) << "no /status under 1,000 idle connections: " << httplib::to_string(status.error());
    EXPECT_EQ(status->status, 200);
    EXPECT_TRUE(nlohmann::json::parse(status->body).is_object()) << status->body;
    result = finish(pid);
  }
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(successes().size(), 12u);
}

TEST_F(CrashSafetyTest, ALiveRunOutlastsAFortySecondWriteLockWithoutLosingAnAttempt) {
  const fs::path log = dir / "ran";
  const std::string command = "echo {id} start $(date +%s) >> " + log.string() + "; sleep 1; echo {id} end $(date +%s) >> " +
                              log.string();
  std::vector<std::string> args = run_args(command, 16, 2);
  args.insert(args.end(), {"--status-port", "0"});
  pid_t pid = start(args);
  for (int i = 0; i < 3000 && successes().empty(); ++i) usleep(10'000);
  ASSERT_FALSE(successes().empty()) << read_text(dir / "stderr");
  const int port = status_port();
  ASSERT_GT(port, 0) << read_text(dir / "stderr");
  StoreLockHolder lock(store, 40);
  ASSERT_TRUE(lock.locked());
  const std::size_t recorded_before = successes().size();
  // The run goes on behind the lock: more ranges start while it is held.
  for (int i = 0; i < 1000 && lines_of(read_text(log)).size() < 2 * recorded_before + 6; ++i) usleep(10'000);
  EXPECT_GE(lines_of(read_text(log)).size(), 2 * recorded_before + 6);
  // The records it keeps in memory meanwhile show in /status and /metrics.
  httplib::Client client("127.0.0.1", port);
  nlohmann::json backlog = nlohmann::json::object();
  for (int i = 0; i < 1000 && backlog.value("unwritten_attempts", 0) < 2; ++i) {
    usleep(10'000);
    if (auto status = client.Get("/status")) {
      backlog = nlohmann::json::parse(status->body).value("store", nlohmann::json::object());
    }
  }
  ASSERT_TRUE(backlog.is_object());
  const int unwritten = backlog.value("unwritten_attempts", 0);
  EXPECT_GE(unwritten, 2) << backlog.dump();
  EXPECT_GE(backlog.value("queued_writes", 0), unwritten) << backlog.dump();
  EXPECT_GT(backlog.value("oldest_queued_s", 0.0), 0.0) << backlog.dump();
  EXPECT_NE(backlog.value("last_error", std::string()).find("locked"), std::string::npos) << backlog.dump();
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("\nmillrace_store_unwritten_attempts "), std::string::npos) << metrics->body;
  EXPECT_EQ(metrics->body.find("\nmillrace_store_unwritten_attempts 0\n"), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("millrace_store_last_error_info{error=\""), std::string::npos) << metrics->body;
  // Readers are served meanwhile (their output in a folder of their own).
  const fs::path reader_dir = dir / "reader";
  fs::create_directories(reader_dir);
  CliResult reader = cli_test::finish_cli(reader_dir, cli_test::start_cli(reader_dir, {"runs", "--store", store}));
  EXPECT_EQ(reader.exit_code, 0) << reader.err;
  EXPECT_EQ(lock.wait(), 0);
  CliResult result = finish(pid);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("is locked by another process"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("is free again; records written"), std::string::npos) << result.err;
  std::map<std::string, int> succeeded = successes();
  EXPECT_EQ(succeeded.size(), 16u);
  for (const auto& [item, count] : succeeded) EXPECT_EQ(count, 1) << item;
  EXPECT_EQ(lines_of(read_text(log)).size(), 32u);
}

}  // namespace
}  // namespace millrace
