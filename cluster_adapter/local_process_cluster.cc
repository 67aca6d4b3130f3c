#include "cluster_adapter/local_process_cluster.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "data/error.h"

// glibc 2.36 declares pidfd_open without C linkage for C++.
extern "C" {
#include <sys/pidfd.h>
}

namespace millrace::cluster_adapter {

namespace {

const std::string kInput = "local cluster";

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// Item ids become file names: anything beyond [A-Za-z0-9._-] becomes '_'.
std::string file_safe(const std::string& id) {
  std::string safe = id;
  for (char& c : safe) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return safe;
}

int open_for_child(const std::string& path, int flags) {
  int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw data::Error(path, errno_text("cannot open"));
  return fd;
}

}  // namespace

LocalProcessCluster::LocalProcessCluster(LocalProcessOptions options, const scheduler::Clock& clock,
                                         ShutdownSignal* shutdown)
    : options_(std::move(options)), command_(options_.command), clock_(clock), shutdown_(shutdown) {
  if (options_.concurrency < 1) {
    throw data::Error(kInput, "concurrency must be at least 1, got " + std::to_string(options_.concurrency));
  }
  std::error_code error;
  std::filesystem::create_directories(options_.log_dir, error);
  if (error) throw data::Error(options_.log_dir, "cannot create log directory: " + error.message());
  slot_busy_.assign(options_.concurrency, false);
}

LocalProcessCluster::~LocalProcessCluster() {
  for (auto& [handle, running] : running_) {
    kill(-running.pid, SIGKILL);
    waitpid(running.pid, nullptr, 0);
    close(running.pidfd);
  }
}

int LocalProcessCluster::capacity() const { return options_.concurrency; }

std::string LocalProcessCluster::log_path(const std::string& item_id, int attempt, const std::string& stream) const {
  return options_.log_dir + "/" + file_safe(item_id) + "." + std::to_string(attempt) + "." + stream;
}

pid_t LocalProcessCluster::spawn(const std::string& command, const std::string& out_path,
                                 const std::string& err_path) {
  // Everything the child touches is prepared before fork: between fork and exec it makes only
  // async-signal-safe calls (the status server's thread may hold locks at fork time).
  int in_fd = open_for_child("/dev/null", O_RDONLY);
  int out_fd = open_for_child(out_path, O_WRONLY | O_CREAT | O_TRUNC);
  int err_fd = open_for_child(err_path, O_WRONLY | O_CREAT | O_TRUNC);
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t parent = getpid();
  sigset_t all;
  sigfillset(&all);
  sigset_t saved;
  pthread_sigmask(SIG_SETMASK, &all, &saved);  // no handler of ours may run in the child
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int signo : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGQUIT, SIGHUP}) sigaction(signo, &default_action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execv("/bin/sh", const_cast<char* const*>(argv));
    _exit(127);
  }
  int fork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  close(in_fd);
  close(out_fd);
  close(err_fd);
  if (pid < 0) throw data::Error(kInput, std::string("cannot fork: ") + std::strerror(fork_errno));
  setpgid(pid, pid);  // also from the parent, so the group exists before we may signal it
  return pid;
}

void LocalProcessCluster::submit(const scheduler::Submission& submission) {
  const data::WorkItem& item = *submission.item;
  if (running() >= options_.concurrency) {
    throw data::Error(kInput, "submission of item '" + item.id + "' beyond capacity " +
                                  std::to_string(options_.concurrency));
  }
  if (running_.contains(submission.handle)) {
    throw data::Error(kInput, "attempt handle " + std::to_string(submission.handle) + " submitted twice");
  }
  int slot = static_cast<int>(std::find(slot_busy_.begin(), slot_busy_.end(), false) - slot_busy_.begin());
  std::string worker = submission.worker.value_or("local-" + std::to_string(slot));
  std::string command = command_.render(item, submission.attempt, worker);

  Running running;
  running.slot = slot;
  running.worker = worker;
  running.started = clock_.now();
  running.pid = spawn(command, log_path(item.id, submission.attempt, "out"),
                      log_path(item.id, submission.attempt, "err"));
  running.pidfd = pidfd_open(running.pid, 0);
  if (running.pidfd < 0) {
    int open_errno = errno;
    kill(-running.pid, SIGKILL);
    waitpid(running.pid, nullptr, 0);
    throw data::Error(kInput, std::string("pidfd_open: ") + std::strerror(open_errno));
  }
  slot_busy_[slot] = true;
  scheduler::AttemptEvent started;
  started.handle = submission.handle;
  started.at = running.started;
  started.worker = worker;
  pending_.push_back(Pending{EventKind::kStarted, started});
  running_.emplace(submission.handle, std::move(running));
}

void LocalProcessCluster::terminate(Running& running, const std::string& reason) {
  if (!running.kill_reason.empty()) return;
  running.kill_reason = reason;
  kill(-running.pid, SIGTERM);
  running.kill_at = clock_.now() + options_.kill_grace;
}

void LocalProcessCluster::cancel(scheduler::AttemptHandle handle) {
  auto it = running_.find(handle);
  if (it != running_.end()) terminate(it->second, "cancelled");
}

void LocalProcessCluster::reap(scheduler::AttemptHandle handle) {
  auto node = running_.extract(handle);
  Running& running = node.mapped();
  // The leader is a zombie until waitpid, so its group id cannot have been reused yet:
  // kill whatever the attempt left behind in its group.
  kill(-running.pid, SIGKILL);
  int status = 0;
  while (waitpid(running.pid, &status, 0) < 0 && errno == EINTR) {
  }
  close(running.pidfd);
  slot_busy_[running.slot] = false;

  scheduler::AttemptEvent event;
  event.handle = handle;
  event.at = clock_.now();
  event.worker = running.worker;
  if (WIFEXITED(status)) {
    event.exit_code = WEXITSTATUS(status);
    event.reason = "exit";
  } else {
    event.exit_code = 128 + WTERMSIG(status);
    event.reason = "signal";
  }
  if (!running.kill_reason.empty()) {
    event.reason = running.kill_reason;
  } else if (event.exit_code == 0) {
    event.reason.clear();
    pending_.push_back(Pending{EventKind::kSucceeded, event});
    return;
  }
  pending_.push_back(Pending{EventKind::kFailed, event});
}

std::optional<data::Micros> LocalProcessCluster::next_deadline() const {
  std::optional<data::Micros> next;
  for (const auto& [handle, running] : running_) {
    std::optional<data::Micros> due;
    if (running.kill_reason.empty() && options_.timeout > 0) due = running.started + options_.timeout;
    if (running.kill_at) due = running.kill_at;
    if (due && (!next || *due < *next)) next = due;
  }
  return next;
}

void LocalProcessCluster::enforce_deadlines() {
  data::Micros now = clock_.now();
  for (auto& [handle, running] : running_) {
    if (running.kill_reason.empty() && options_.timeout > 0 && running.started + options_.timeout <= now) {
      terminate(running, "timeout");
    } else if (running.kill_at && *running.kill_at <= now) {
      kill(-running.pid, SIGKILL);
      running.kill_at.reset();
    }
  }
}

bool LocalProcessCluster::gather(data::Micros wait) {
  if (auto deadline = next_deadline()) wait = std::min(wait, *deadline - clock_.now());
  wait = std::max<data::Micros>(wait, 0);

  std::vector<pollfd> fds;
  std::vector<scheduler::AttemptHandle> handles;
  for (const auto& [handle, running] : running_) {
    fds.push_back(pollfd{running.pidfd, POLLIN, 0});
    handles.push_back(handle);
  }
  bool watch_shutdown = shutdown_ != nullptr && !shutdown_seen_;
  if (watch_shutdown) fds.push_back(pollfd{shutdown_->fd(), POLLIN, 0});
  timespec timeout{static_cast<time_t>(wait / data::kMicrosPerSecond),
                   static_cast<long>(wait % data::kMicrosPerSecond) * 1000};
  int ready = ppoll(fds.data(), fds.size(), &timeout, nullptr);
  if (ready < 0 && errno != EINTR) throw data::Error(kInput, errno_text("ppoll"));
  if (ready > 0) {
    for (std::size_t i = 0; i < handles.size(); ++i) {
      if (fds[i].revents != 0) reap(handles[i]);
    }
  }
  enforce_deadlines();
  shutdown_seen_ = watch_shutdown && shutdown_->requested();
  return shutdown_seen_;
}

void LocalProcessCluster::deliver() {
  if (listener_ == nullptr) return;
  while (!pending_.empty()) {
    Pending next = std::move(pending_.front());
    pending_.pop_front();
    switch (next.kind) {
      case EventKind::kStarted: listener_->on_started(next.event); break;
      case EventKind::kSucceeded: listener_->on_succeeded(next.event); break;
      case EventKind::kFailed: listener_->on_failed(next.event); break;
    }
  }
}

void LocalProcessCluster::poll(data::Micros max_wait) {
  bool woken = gather(0);
  data::Micros until = clock_.now() + max_wait;
  while (pending_.empty() && !woken) {
    data::Micros left = until - clock_.now();
    if (left <= 0) break;
    woken = gather(left);
  }
  deliver();
}

}  // namespace millrace::cluster_adapter
