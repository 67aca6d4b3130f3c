#include "cluster_adapter/local/local_process_cluster.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cluster_adapter/realtime/attempt_exit_status.h"
#include "cluster_adapter/realtime/process_identity.h"
#include "data/error.h"
#include "data/quantity.h"
#include "data/readable_duration.h"

namespace millrace::cluster_adapter {

namespace {

const std::string kInput = "local cluster";
constexpr data::Micros kTreeRecheck = 10 * data::kMicrosPerMilli;  // while a dead leader's tree drains

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// Item ids become file names, injectively: bytes outside [A-Za-z0-9._-] and '%' itself become
// %XX, so "a/b" is "a%2Fb" and "a_b" stays "a_b".
std::string file_safe(const std::string& id) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string safe;
  for (char c : id) {
    auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '.' || c == '_' || c == '-') {
      safe += c;
    } else {
      safe += {'%', kHex[byte >> 4], kHex[byte & 15]};
    }
  }
  return safe;
}

// A file descriptor closed when it goes out of scope.
class OwnedFd {
 public:
  explicit OwnedFd(int fd = -1) : fd_(fd) {}
  ~OwnedFd() {
    if (fd_ >= 0) close(fd_);
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

int open_for_child(const std::string& path, int flags) {
  int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw data::Error(path, errno_text("cannot open"));
  return fd;
}

std::string default_session_tag() {
  static std::atomic<int> clusters{0};
  ProcessIdentity me = self_identity();
  return std::to_string(me.pid) + "." + std::to_string(me.start_ticks) + "." + std::to_string(++clusters);
}

}  // namespace

data::Quantities machine_capacity() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return {{"cpu", std::max(1L, cpus) * 1000LL}, {"memory", static_cast<std::int64_t>(pages) * page_size * 1000}};
}

void require_fits_machine(const data::WorkItem& item, const data::Quantities& capacity,
                          const std::string& origin) {
  const std::string short_of = data::short_resource(item.requests, capacity);
  if (short_of.empty()) return;
  throw data::Error("item '" + item.id + "'", "requests " + data::readable_quantities(item.requests) +
                                                 ", more than this machine has for attempts (" +
                                                 data::readable_quantities(capacity) + ", " + origin +
                                                 "): short of " + short_of + ", it could never start");
}

LocalProcessCluster::LocalProcessCluster(LocalProcessOptions options, const scheduler::Clock& clock,
                                         ShutdownSignal* shutdown)
    : options_(std::move(options)),
      command_(options_.command),
      trees_(options_.session_tag.empty() ? default_session_tag() : options_.session_tag, options_.cgroups),
      clock_(clock),
      shutdown_(shutdown) {
  if (options_.concurrency < 1) {
    throw data::Error(kInput, "concurrency must be at least 1, got " + std::to_string(options_.concurrency));
  }
  std::error_code error;
  std::filesystem::create_directories(options_.log_dir, error);
  if (error) throw data::Error(options_.log_dir, "cannot create log directory: " + error.message());
  slot_busy_.assign(options_.concurrency, false);
  free_ = options_.capacity;
}

LocalProcessCluster::~LocalProcessCluster() {
  for (auto& [handle, running] : running_) trees_.signal(running.tree, SIGKILL);
  for (auto& [handle, running] : running_) {
    if (running.pidfd >= 0) {
      waitpid(running.tree.pid, nullptr, 0);
      close(running.pidfd);
    }
    for (int i = 0; i < 500 && !trees_.empty(running.tree); ++i) usleep(kTreeRecheck);
    trees_.release(running.tree);
  }
}

int LocalProcessCluster::capacity() const { return options_.concurrency; }

std::string LocalProcessCluster::log_path(const std::string& item_id, int attempt, const std::string& stream) const {
  return options_.log_dir + "/" + file_safe(item_id) + "." + std::to_string(attempt) + "." + stream;
}

TreeIdentity LocalProcessCluster::spawn(const std::string& key, const std::string& command,
                                        const std::string& log_stem, int* pidfd) {
  // Everything the child touches is prepared before it exists (see attempt_spawn.h).
  OwnedFd in_fd(open_for_child("/dev/null", O_RDONLY));
  OwnedFd out_fd(open_for_child(log_stem + "out", O_WRONLY | O_CREAT | O_TRUNC));
  OwnedFd err_fd(open_for_child(log_stem + "err", O_WRONLY | O_CREAT | O_TRUNC));
  // Absolute, for a later session started elsewhere; a file an earlier run left here would
  // read as this attempt's status.
  const std::string status_file = std::filesystem::absolute(log_stem + "status").string();
  if (unlink(status_file.c_str()) != 0 && errno != ENOENT) throw data::Error(status_file, errno_text("cannot remove"));
  ProcessTrees::Place place = trees_.prepare(key);
  OwnedFd procs_fd(place.procs_fd);
  SpawnRequest request;
  request.argv = recorded_command(command, status_file);
  request.env = environment_with(kTreeMarker, place.tag);
  request.stdin_fd = in_fd.get();
  request.stdout_fd = out_fd.get();
  request.stderr_fd = err_fd.get();
  request.cgroup_procs_fd = procs_fd.get();
  SpawnedProcess process;
  try {
    process = spawner_.spawn(request);
  } catch (const data::Error&) {
    if (!place.cgroup.empty()) rmdir(place.cgroup.c_str());
    throw;
  }
  *pidfd = process.pidfd;
  TreeIdentity tree = trees_.identify(place, process.pid);
  tree.status_file = status_file;
  return tree;
}

void LocalProcessCluster::submit(const scheduler::Submission& submission) {
  const data::WorkItem item = submission.item();
  if (running() + held() >= options_.concurrency) {
    throw data::Error(kInput, "submission of item '" + item.id + "' beyond capacity " +
                                  std::to_string(options_.concurrency));
  }
  const bool held_already = std::any_of(held_.begin(), held_.end(), [&](const scheduler::Submission& h) {
    return h.handle == submission.handle;
  });
  if (running_.contains(submission.handle) || held_already) {
    throw data::Error(kInput, "attempt handle " + std::to_string(submission.handle) + " submitted twice");
  }
  if (!options_.capacity.empty()) {
    require_fits_machine(item, options_.capacity, "--local-capacity");
    if (!held_.empty() || !data::short_resource(item.requests, free_).empty()) {
      held_.push_back(submission);
      return;
    }
  }
  start(submission);
}

void LocalProcessCluster::start(const scheduler::Submission& submission) {
  const data::WorkItem item = submission.item();
  int slot = static_cast<int>(std::find(slot_busy_.begin(), slot_busy_.end(), false) - slot_busy_.begin());
  std::string slot_name = "local-" + std::to_string(slot);
  std::string worker = submission.worker.empty() ? slot_name : std::string(submission.worker);
  std::string command = command_.render(item, submission.attempt, worker);

  Running running;
  running.slot = slot;
  running.worker = worker;
  running.started = clock_.now();
  running.tree = spawn(std::to_string(submission.handle), command, log_path(item.id, submission.attempt, ""),
                       &running.pidfd);
  slot_busy_[slot] = true;
  if (!options_.capacity.empty()) {
    running.requests = item.requests;
    for (const auto& [resource, milli] : item.requests) free_[resource] -= milli;
  }
  if (tree_observer_) tree_observer_(item, submission.attempt, worker, running.tree);
  scheduler::KeptAttemptEvent started;
  started.handle = submission.handle;
  started.at = running.started;
  started.worker = worker;
  // Placed when its slot was granted (a held submission waits for room first), then spawned.
  started.placed = running.started;
  started.node = std::move(slot_name);
  pending_.push_back(Pending{EventKind::kStarted, started});
  running_.emplace(submission.handle, std::move(running));
}

void LocalProcessCluster::terminate(Running& running, const std::string& reason) {
  if (!running.kill_reason.empty()) return;
  running.kill_reason = reason;
  trees_.signal(running.tree, SIGTERM);
  running.kill_at = clock_.now() + options_.kill_grace;
}

void LocalProcessCluster::start_held() {
  while (!held_.empty() && data::short_resource(held_.front().requests(), free_).empty()) {
    const scheduler::Submission next = held_.front();
    held_.pop_front();
    start(next);
  }
}

void LocalProcessCluster::cancel(scheduler::AttemptHandle handle) {
  auto waiting = std::find_if(held_.begin(), held_.end(), [&](const scheduler::Submission& h) { return h.handle == handle; });
  if (waiting != held_.end()) {
    held_.erase(waiting);
    scheduler::KeptAttemptEvent event;
    event.handle = handle;
    event.at = clock_.now();
    event.reason = "cancelled";
    pending_.push_back(Pending{EventKind::kFailed, event});
    start_held();
    return;
  }
  auto it = running_.find(handle);
  if (it != running_.end() && it->second.pidfd >= 0) terminate(it->second, "cancelled");
}

void LocalProcessCluster::reap(Running& running) {
  while (waitpid(running.tree.pid, &running.status, 0) < 0 && errno == EINTR) {
  }
  close(running.pidfd);
  running.pidfd = -1;
  running.kill_at.reset();
  // Whatever the attempt left behind dies with it.
  trees_.signal(running.tree, SIGKILL);
}

void LocalProcessCluster::finish(scheduler::AttemptHandle handle) {
  auto node = running_.extract(handle);
  Running& running = node.mapped();
  trees_.release(running.tree);
  slot_busy_[running.slot] = false;
  for (const auto& [resource, milli] : running.requests) free_[resource] += milli;

  scheduler::KeptAttemptEvent event;
  event.handle = handle;
  event.at = clock_.now();
  event.worker = running.worker;
  if (WIFEXITED(running.status)) {
    event.exit_code = WEXITSTATUS(running.status);
    event.reason = "exit";
  } else {
    event.exit_code = 128 + WTERMSIG(running.status);
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

void LocalProcessCluster::finish_emptied() {
  std::vector<scheduler::AttemptHandle> done;
  for (const auto& [handle, running] : running_) {
    if (running.pidfd < 0 && trees_.empty(running.tree)) done.push_back(handle);
  }
  for (scheduler::AttemptHandle handle : done) finish(handle);
  if (!done.empty()) start_held();
}

bool LocalProcessCluster::draining() const {
  return std::any_of(running_.begin(), running_.end(), [](const auto& entry) { return entry.second.pidfd < 0; });
}

std::optional<data::Micros> LocalProcessCluster::next_deadline() const {
  std::optional<data::Micros> next;
  for (const auto& [handle, running] : running_) {
    if (running.pidfd < 0) continue;
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
    if (running.pidfd < 0) continue;
    if (running.kill_reason.empty() && options_.timeout > 0 && running.started + options_.timeout <= now) {
      terminate(running, "timeout");
    } else if (running.kill_at && *running.kill_at <= now) {
      trees_.signal(running.tree, SIGKILL);
      running.kill_at.reset();
    }
  }
}

bool LocalProcessCluster::gather(data::Micros wait) {
  if (auto deadline = next_deadline()) wait = std::min(wait, *deadline - clock_.now());
  if (draining()) wait = std::min(wait, kTreeRecheck);
  wait = std::max<data::Micros>(wait, 0);

  std::vector<pollfd> fds;
  std::vector<scheduler::AttemptHandle> handles;
  for (const auto& [handle, running] : running_) {
    if (running.pidfd < 0) continue;
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
      if (fds[i].revents != 0) reap(running_.at(handles[i]));
    }
  }
  finish_emptied();
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
      case EventKind::kStarted: listener_->on_started(next.event.view()); break;
      case EventKind::kSucceeded: listener_->on_succeeded(next.event.view()); break;
      case EventKind::kFailed: listener_->on_failed(next.event.view()); break;
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
