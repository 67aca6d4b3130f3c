// Starting an attempt's process without copying millrace's page tables: clone(2) with
// CLONE_VM | CLONE_VFORK, as posix_spawn does, so the cost of a start does not grow with the
// plan held in memory (fork() of a large process copies its page tables every time). Unlike
// posix_spawn, the child does what an attempt needs before exec: its own process group,
// SIGKILL when the spawning thread dies (PR_SET_PDEATHSIG), joining the attempt's cgroup, and
// default signal handling. Between clone and exec the child shares millrace's memory, so it
// only makes system calls on data prepared beforehand; millrace's thread waits meanwhile.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace millrace::cluster_adapter {

// Exit codes of a child that could not become the attempt (before the command ran).
constexpr int kExitCannotExec = 127;       // exec failed, or the spawning thread was gone
constexpr int kExitCannotJoinCgroup = 125; // writing itself into the cgroup failed

struct SpawnRequest {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::vector<std::string> env;   // "NAME=value" entries, the whole environment
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int cgroup_procs_fd = -1;       // >= 0: a cgroup's cgroup.procs, which the child joins first
};

struct SpawnedProcess {
  pid_t pid = -1;    // also its process group
  int pidfd = -1;    // owned by the caller
};

class Spawner {
 public:
  Spawner();  // maps the children's stack once
  ~Spawner();
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;

  // Starts the process; returns once it exec'd (or failed to, then it exits 127). Throws
  // data::Error when the process cannot be created.
  SpawnedProcess spawn(const SpawnRequest& request);

 private:
  void* stack_ = nullptr;
};

// This process's environment with every `name`=... entry replaced by `name`=`value`.
std::vector<std::string> environment_with(const std::string& name, const std::string& value);

}  // namespace millrace::cluster_adapter
