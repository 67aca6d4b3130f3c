#include "cluster_adapter/realtime/process_trees.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "cluster_adapter/realtime/process_identity.h"
#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

namespace fs = std::filesystem;

constexpr auto kRecheck = std::chrono::milliseconds(10);

// The cgroup v2 directory holding this process ("" when there is no cgroup2 mount).
std::string own_cgroup_dir() {
  std::string mount;
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    std::size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (root == "/") mount = point;
  }
  if (mount.empty()) return "";
  std::ifstream groups("/proc/self/cgroup");
  for (std::string line; std::getline(groups, line);) {
    if (line.rfind("0::", 0) == 0) return mount + (line.size() > 4 ? line.substr(3) : "");
  }
  return "";
}

bool write_text(const std::string& path, const char* text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text, std::strlen(text)) == static_cast<ssize_t>(std::strlen(text));
  close(fd);
  return ok;
}

bool populated(const std::string& cgroup) {
  std::ifstream events(cgroup + "/cgroup.events");
  for (std::string line; std::getline(events, line);) {
    if (line == "populated 1") return true;
  }
  return false;
}

// Every pid in `cgroup` and the cgroups below it.
std::vector<pid_t> cgroup_members(const std::string& cgroup) {
  std::vector<pid_t> pids;
  std::error_code error;
  std::vector<fs::path> dirs{cgroup};
  for (fs::recursive_directory_iterator it(cgroup, error), end; !error && it != end; it.increment(error)) {
    if (it->is_directory(error)) dirs.push_back(it->path());
  }
  for (const fs::path& dir : dirs) {
    std::ifstream procs(dir / "cgroup.procs");
    for (pid_t pid; procs >> pid;) pids.push_back(pid);
  }
  return pids;
}

// Removes `cgroup` and the (empty) cgroups below it, deepest first.
void remove_cgroups(const std::string& cgroup) {
  std::error_code error;
  std::vector<fs::path> dirs;
  for (fs::recursive_directory_iterator it(cgroup, error), end; !error && it != end; it.increment(error)) {
    if (it->is_directory(error)) dirs.push_back(it->path());
  }
  for (auto dir = dirs.rbegin(); dir != dirs.rend(); ++dir) rmdir(dir->c_str());
  rmdir(cgroup.c_str());
}

// The environment a running process was started with (empty for zombies and the unreadable).
std::string environment_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether `environment` has an entry `entry` exactly, or (prefix) one starting with it.
bool has_entry(const std::string& environment, const std::string& entry, bool prefix) {
  for (std::size_t at = 0; at < environment.size();) {
    std::size_t end = environment.find('\0', at);
    if (end == std::string::npos) end = environment.size();
    std::string_view item(environment.data() + at, end - at);
    if (prefix ? item.starts_with(entry) : item == entry) return true;
    at = end + 1;
  }
  return false;
}

// Running processes (not this one) that are in group `pgid` (when > 0) or carry `entry` in
// their environment (exactly, or as a prefix).
std::vector<pid_t> tree_processes(pid_t pgid, const std::string& entry, bool prefix) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  const pid_t self = getpid();
  while (dirent* d = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(d->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    if (pgid > 0) {
      std::optional<pid_t> group = process_group(static_cast<pid_t>(pid));
      if (!group) continue;  // gone or a zombie
      if (*group == pgid) {
        pids.push_back(static_cast<pid_t>(pid));
        continue;
      }
    }
    std::string environment = environment_of(static_cast<pid_t>(pid));
    if (environment.empty() && start_ticks(static_cast<pid_t>(pid))) {
      // Read while it exec'd (its memory being replaced), or a truly empty environment: once more.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      environment = environment_of(static_cast<pid_t>(pid));
    }
    if (has_entry(environment, entry, prefix)) pids.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return pids;
}

std::string marker_entry(const std::string& tag) { return std::string(kTreeMarker) + "=" + tag; }

}  // namespace

ProcessTrees::ProcessTrees(std::string session_tag, bool allow_cgroups) : session_tag_(std::move(session_tag)) {
  if (!allow_cgroups) return;
  std::string own = own_cgroup_dir();
  // Moving a child into a cgroup below ours needs write access to our own cgroup.procs.
  if (own.empty() || access((own + "/cgroup.procs").c_str(), W_OK) != 0) return;
  std::string root = own + "/millrace-" + session_tag_;
  if (mkdir(root.c_str(), 0755) != 0 && errno != EEXIST) return;
  if (access((root + "/cgroup.kill").c_str(), W_OK) != 0) {  // kernels before 5.14
    rmdir(root.c_str());
    return;
  }
  root_ = root;
}

ProcessTrees::~ProcessTrees() {
  if (!root_.empty()) remove_cgroups(root_);
}

ProcessTrees::Place ProcessTrees::prepare(const std::string& key) const {
  Place place;
  place.tag = session_tag_ + "." + key;
  if (root_.empty()) return place;
  place.cgroup = root_ + "/a" + key;
  if (mkdir(place.cgroup.c_str(), 0755) != 0 && errno != EEXIST) {
    throw data::Error(place.cgroup, std::string("cannot create the attempt's cgroup: ") + std::strerror(errno));
  }
  place.procs_fd = open((place.cgroup + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (place.procs_fd < 0) {
    int open_errno = errno;
    rmdir(place.cgroup.c_str());
    throw data::Error(place.cgroup, std::string("cannot open cgroup.procs: ") + std::strerror(open_errno));
  }
  return place;
}

TreeIdentity ProcessTrees::identify(const Place& place, pid_t pid) const {
  TreeIdentity tree;
  tree.pid = pid;
  tree.pgid = pid;
  tree.start_ticks = start_ticks(pid).value_or(0);
  tree.boot_id = boot_id();
  tree.tag = place.tag;
  tree.cgroup = place.cgroup;
  return tree;
}

void ProcessTrees::signal(const TreeIdentity& tree, int signo) const {
  if (!tree.cgroup.empty()) {
    if (signo == SIGKILL && write_text(tree.cgroup + "/cgroup.kill", "1")) return;
    for (pid_t pid : cgroup_members(tree.cgroup)) kill(pid, signo);
    return;
  }
  if (tree.pgid > 1) kill(-tree.pgid, signo);
  for (pid_t pid : tree_processes(0, marker_entry(tree.tag), false)) kill(pid, signo);
}

bool ProcessTrees::empty(const TreeIdentity& tree) const {
  if (!tree.cgroup.empty()) return !populated(tree.cgroup);
  return tree_processes(tree.pgid, marker_entry(tree.tag), false).empty();
}

void ProcessTrees::release(const TreeIdentity& tree) const {
  if (!tree.cgroup.empty()) rmdir(tree.cgroup.c_str());
}

int end_session_leftovers(const SessionLeftovers& leftovers, data::Micros patience) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(patience);
  const bool has_cgroup = !leftovers.root.empty() && fs::exists(leftovers.root);
  const std::string session_entry = marker_entry(leftovers.session_tag + ".");
  std::set<pid_t> ended;
  int quiet_looks = 0;
  while (true) {
    std::vector<pid_t> victims;
    if (has_cgroup) {
      for (pid_t pid : cgroup_members(leftovers.root)) {
        if (start_ticks(pid)) victims.push_back(pid);  // zombies are gone already
      }
    }
    if (!leftovers.session_tag.empty()) {
      for (pid_t pid : tree_processes(0, session_entry, true)) victims.push_back(pid);
    }
    for (const TreeIdentity& tree : leftovers.trees) {
      // The group only while its leader provably is the recorded one: a group id outlives
      // nothing of the session once its members are gone.
      ProcessIdentity leader{host_name(), tree.pid, tree.start_ticks, tree.boot_id};
      if (is_running_here(leader)) {
        for (pid_t pid : tree_processes(tree.pgid, marker_entry(tree.tag), false)) victims.push_back(pid);
      }
    }
    bool cgroup_busy = has_cgroup && populated(leftovers.root);
    // Two clean looks in a row: a process caught between fork and exec in one is seen in the next.
    quiet_looks = victims.empty() && !cgroup_busy ? quiet_looks + 1 : 0;
    if (quiet_looks == 2) break;
    if (quiet_looks == 1) {
      std::this_thread::sleep_for(kRecheck);
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw data::Error("session " + leftovers.session_tag,
                        std::to_string(victims.size()) + " processes it left still run after SIGKILL (first: pid " +
                            (victims.empty() ? std::string("?") : std::to_string(victims.front())) + ")");
    }
    if (has_cgroup) write_text(leftovers.root + "/cgroup.kill", "1");
    for (pid_t pid : victims) {
      kill(pid, SIGKILL);
      ended.insert(pid);
    }
    std::this_thread::sleep_for(kRecheck);
  }
  if (has_cgroup) remove_cgroups(leftovers.root);
  return static_cast<int>(ended.size());
}

}  // namespace millrace::cluster_adapter
