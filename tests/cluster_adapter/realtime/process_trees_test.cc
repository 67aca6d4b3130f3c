// A session's process trees: spawned without fork's page-table copy, each attempt's tree held
// (cgroup where this machine allows it, marker and process group in every case), and what a
// dead session left behind ended by a later one, setsid'd and double-forked descendants too.
#include "cluster_adapter/realtime/process_trees.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_adapter/local/attempt_spawn.h"
#include "cluster_adapter/realtime/process_identity.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

// True while `pid` runs (a zombie does not).
bool runs(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return false;
  return line[line.rfind(')') + 2] != 'Z';
}

std::vector<pid_t> read_pids(const fs::path& file) {
  std::ifstream in(file);
  std::vector<pid_t> pids;
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  return pids;
}

// The environment entry MILLRACE_TREE of `pid`, read independently of process_trees.cc.
std::string marker_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  for (std::string entry; std::getline(in, entry, '\0');) {
    if (entry.rfind("MILLRACE_TREE=", 0) == 0) return entry.substr(14);
  }
  return "";
}

class ProcessTreesTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir = scratch_.path();
    tag = "test" + std::to_string(getpid()) + (GetParam() ? "c" : "m");
  }

  // Spawns `script` into a new tree of `trees`, as LocalProcessCluster does.
  TreeIdentity spawn(const ProcessTrees& trees, const std::string& key, const std::string& script) {
    ProcessTrees::Place place = trees.prepare(key);
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    SpawnRequest request;
    request.argv = {"/bin/sh", "-c", script};
    request.env = environment_with(kTreeMarker, place.tag);
    request.stdin_fd = request.stdout_fd = request.stderr_fd = null_fd;
    request.cgroup_procs_fd = place.procs_fd;
    SpawnedProcess process = spawner.spawn(request);
    close(null_fd);
    if (place.procs_fd >= 0) close(place.procs_fd);
    close(process.pidfd);
    leaders.push_back(process.pid);
    return trees.identify(place, process.pid);
  }

  // Waits until `file` lists `n` pids.
  std::vector<pid_t> wait_for_pids(const fs::path& file, std::size_t n) {
    for (int i = 0; i < 500 && read_pids(file).size() < n; ++i) usleep(10'000);
    return read_pids(file);
  }

  test_support::ScratchDir scratch_;
  fs::path dir;
  std::string tag;
  Spawner spawner;
  std::vector<pid_t> leaders;
};

// A leader that starts a setsid'd child, a double-forked daemon and a plain background child,
// each writing its pid, then waits.
std::string escaping_script(const fs::path& pids) {
  const std::string file = pids.string();
  return "setsid sh -c 'echo $$ >> " + file + "; exec sleep 300' & "
         "(setsid sh -c 'echo $$ >> " + file + "; exec sleep 300' &) ; "
         "sh -c 'echo $$ >> " + file + "; exec sleep 300' & wait";
}

TEST_P(ProcessTreesTest, SpawnedLeaderHasItsOwnGroupTheMarkerAndItsIdentity) {
  ProcessTrees trees(tag, GetParam());
  TreeIdentity tree = spawn(trees, "1", "echo $$ > " + (dir / "leader").string() + "; exec sleep 300");
  std::vector<pid_t> pids = wait_for_pids(dir / "leader", 1);
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_EQ(pids[0], tree.pid);
  EXPECT_EQ(getpgid(tree.pid), tree.pid);
  for (int i = 0; i < 100 && marker_of(tree.pid).empty(); ++i) usleep(10'000);  // read mid-exec: again
  EXPECT_EQ(marker_of(tree.pid), tag + ".1");
  EXPECT_EQ(tree.tag, tag + ".1");
  EXPECT_EQ(tree.start_ticks, start_ticks(tree.pid).value());
  EXPECT_FALSE(tree.boot_id.empty());
  if (trees.uses_cgroups()) {
    std::ifstream procs(tree.cgroup + "/cgroup.procs");
    pid_t member = 0;
    procs >> member;
    EXPECT_EQ(member, tree.pid);
  }
  EXPECT_FALSE(trees.empty(tree));
  trees.signal(tree, SIGKILL);
  int status = 0;
  waitpid(tree.pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  for (int i = 0; i < 500 && !trees.empty(tree); ++i) usleep(10'000);
  EXPECT_TRUE(trees.empty(tree));
  trees.release(tree);
}

TEST_P(ProcessTreesTest, KillingATreeReachesDescendantsThatLeftItsGroupAndSession) {
  ProcessTrees trees(tag, GetParam());
  TreeIdentity tree = spawn(trees, "7", escaping_script(dir / "pids"));
  std::vector<pid_t> escaped = wait_for_pids(dir / "pids", 3);
  ASSERT_EQ(escaped.size(), 3u);
  std::set<pid_t> sessions;
  for (pid_t pid : escaped) {
    ASSERT_TRUE(runs(pid));
    sessions.insert(getsid(pid));
  }
  EXPECT_EQ(sessions.size(), 3u);  // two new sessions and the leader's
  trees.signal(tree, SIGKILL);
  waitpid(tree.pid, nullptr, 0);
  for (int i = 0; i < 500 && !trees.empty(tree); ++i) usleep(10'000);
  for (pid_t pid : escaped) EXPECT_FALSE(runs(pid)) << pid;
  trees.release(tree);
}

TEST_P(ProcessTreesTest, ALaterSessionEndsWhatADeadSessionLeftAndRemovesItsCgroups) {
  SessionLeftovers leftovers;
  {
    ProcessTrees dead(tag, GetParam());
    leftovers.root = dead.root();
    leftovers.session_tag = dead.session_tag();
    for (const std::string key : {"1", "2"}) {
      leftovers.trees.push_back(spawn(dead, key, escaping_script(dir / ("pids" + key))));
    }
    // Its owner "dies": the leaders go (as PR_SET_PDEATHSIG does), their descendants stay.
    ASSERT_EQ(wait_for_pids(dir / "pids1", 3).size(), 3u);
    ASSERT_EQ(wait_for_pids(dir / "pids2", 3).size(), 3u);
    for (pid_t leader : leaders) {
      kill(leader, SIGKILL);
      waitpid(leader, nullptr, 0);
    }
  }  // its ProcessTrees is gone; the cgroups it could not remove stay
  std::vector<pid_t> left = read_pids(dir / "pids1");
  for (pid_t pid : read_pids(dir / "pids2")) left.push_back(pid);
  for (pid_t pid : left) ASSERT_TRUE(runs(pid));

  EXPECT_EQ(end_session_leftovers(leftovers, 10 * data::kMicrosPerSecond), 6);
  for (pid_t pid : left) EXPECT_FALSE(runs(pid)) << pid;
  if (!leftovers.root.empty()) {
    EXPECT_FALSE(fs::exists(leftovers.root));
  }
  EXPECT_EQ(end_session_leftovers(leftovers, data::kMicrosPerSecond), 0);
}

INSTANTIATE_TEST_SUITE_P(Containment, ProcessTreesTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "CgroupWhereAllowed" : "MarkerOnly"; });

TEST(ProcessTreesMachine, SaysWhetherThisMachineAllowsCgroups) {
  ProcessTrees trees("probe" + std::to_string(getpid()));
  // Either way is valid; the figure is in the test log for the report.
  std::cout << "cgroup v2 per attempt on this machine: " << (trees.uses_cgroups() ? trees.root() : "no") << "\n";
  ProcessTrees without("probe-off" + std::to_string(getpid()), false);
  EXPECT_FALSE(without.uses_cgroups());
  EXPECT_TRUE(without.root().empty());
}

}  // namespace
}  // namespace millrace::cluster_adapter
