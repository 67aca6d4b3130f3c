#include "cluster_adapter/local/attempt_spawn.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "data/error.h"

extern char** environ;

namespace millrace::cluster_adapter {

namespace {

constexpr std::size_t kStackSize = 256 * 1024;

// What the child reads: pointers into the parent's memory, valid until spawn() returns.
struct ChildPlan {
  char* const* argv;
  char* const* envp;
  int stdin_fd, stdout_fd, stderr_fd, cgroup_procs_fd;
  pid_t parent;
};

int run_child(void* arg) {
  const ChildPlan& plan = *static_cast<const ChildPlan*>(arg);
  if (plan.cgroup_procs_fd >= 0 && write(plan.cgroup_procs_fd, "0", 1) != 1) _exit(kExitCannotJoinCgroup);
  setpgid(0, 0);  // before exec, so before clone returns: the group exists once we may signal it
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != plan.parent) _exit(kExitCannotExec);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signo = 1; signo < NSIG; ++signo) {
    struct sigaction current {};
    if (sigaction(signo, nullptr, &current) == 0 && current.sa_handler != SIG_DFL) {
      sigaction(signo, &default_action, nullptr);
    }
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  dup2(plan.stdin_fd, 0);
  dup2(plan.stdout_fd, 1);
  dup2(plan.stderr_fd, 2);
  execve(plan.argv[0], plan.argv, plan.envp);
  _exit(kExitCannotExec);
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

Spawner::Spawner() {
  stack_ = mmap(nullptr, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack_ == MAP_FAILED) throw data::Error("local cluster", std::string("cannot map a stack: ") + std::strerror(errno));
}

Spawner::~Spawner() { munmap(stack_, kStackSize); }

SpawnedProcess Spawner::spawn(const SpawnRequest& request) {
  std::vector<char*> argv = pointers(request.argv);
  std::vector<char*> envp = pointers(request.env);
  ChildPlan plan{argv.data(), envp.data(), request.stdin_fd, request.stdout_fd, request.stderr_fd,
                 request.cgroup_procs_fd, getpid()};
  sigset_t all;
  sigfillset(&all);
  sigset_t saved;
  pthread_sigmask(SIG_SETMASK, &all, &saved);  // no handler of ours may run in the child
  int pidfd = -1;
  pid_t pid = clone(run_child, static_cast<char*>(stack_) + kStackSize,
                    CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &plan, &pidfd);
  int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (pid < 0) throw data::Error("local cluster", std::string("cannot start a process: ") + std::strerror(clone_errno));
  return SpawnedProcess{pid, pidfd};
}

std::vector<std::string> environment_with(const std::string& name, const std::string& value) {
  std::vector<std::string> env;
  const std::string prefix = name + "=";
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, prefix.c_str(), prefix.size()) != 0) env.emplace_back(*entry);
  }
  env.push_back(prefix + value);
  return env;
}

}  // namespace millrace::cluster_adapter
