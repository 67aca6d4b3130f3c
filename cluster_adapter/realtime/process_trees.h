// Holding on to every process an attempt starts, its whole tree, also descendants that leave
// its process group or session (setsid, double fork): each attempt gets a cgroup v2 of its own
// where the machine allows (a cgroup2 mount whose part holding millrace we may write; the child
// joins it before exec, so nothing it starts escapes), and in every case a marker in its
// environment, MILLRACE_TREE=<session tag>.<attempt>, that its descendants inherit. Ending a
// tree is cgroup.kill, or (the fallback) SIGKILL to its process group and to every process
// carrying its marker. The tree's identity (its leader's pid, group, start time, the boot id,
// marker and cgroup) goes into the store, and the session's tag and cgroup root too, so that a
// later millrace can end what a killed one left running (end_session_leftovers) before any of
// its ranges runs again.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/records.h"
#include "data/time.h"

namespace millrace::cluster_adapter {

// The environment variable every attempt (and whatever it starts) carries.
constexpr const char* kTreeMarker = "MILLRACE_TREE";

struct TreeIdentity {
  pid_t pid = -1;               // the attempt's leader (/bin/sh -c ...)
  pid_t pgid = -1;              // its process group
  std::uint64_t start_ticks = 0;
  std::string boot_id;
  std::string tag;              // value of MILLRACE_TREE in its environment
  std::string cgroup;           // its cgroup directory, empty without cgroups
};

// Told of each attempt's process tree right after it was spawned.
using TreeObserver = std::function<void(const data::WorkItem& item, int attempt, const std::string& worker,
                                        const TreeIdentity& tree)>;

class ProcessTrees {
 public:
  // `session_tag` must be unique on the machine for the life of the session (e.g. millrace's
  // pid and start time). With `allow_cgroups` false, or where the machine does not allow them,
  // trees are held by their marker and process group only.
  explicit ProcessTrees(std::string session_tag, bool allow_cgroups = true);
  // Removes the session's cgroup directory when its trees are all gone.
  ~ProcessTrees();
  ProcessTrees(const ProcessTrees&) = delete;
  ProcessTrees& operator=(const ProcessTrees&) = delete;

  bool uses_cgroups() const { return !root_.empty(); }
  const std::string& root() const { return root_; }          // the session's cgroup ("" when none)
  const std::string& session_tag() const { return session_tag_; }

  // An attempt's place, made before it is spawned: its marker and (with cgroups) its cgroup
  // with cgroup.procs open for the child to join (procs_fd, owned by the caller; -1 without).
  struct Place {
    std::string tag;
    std::string cgroup;
    int procs_fd = -1;
  };
  // `key` is unique within the session (the attempt's handle). Throws data::Error when the
  // cgroup cannot be made.
  Place prepare(const std::string& key) const;
  // The identity of the tree whose leader `pid` was spawned into `place`.
  TreeIdentity identify(const Place& place, pid_t pid) const;

  // Sends `signo` to every process of the tree (SIGKILL with cgroups: cgroup.kill).
  void signal(const TreeIdentity& tree, int signo) const;
  // True when no process of the tree runs any more (zombies count as gone).
  bool empty(const TreeIdentity& tree) const;
  // Removes the tree's cgroup (once empty(); a no-op without cgroups).
  void release(const TreeIdentity& tree) const;

 private:
  std::string session_tag_;
  std::string root_;
};

// What a dead session left, as recorded: its cgroup root and tag, and the trees of its
// attempts that never finished.
struct SessionLeftovers {
  std::string root;
  std::string session_tag;
  std::vector<TreeIdentity> trees;
};

// Ends (SIGKILL) every process of a dead session on this machine: its cgroups, its marked
// processes, its recorded leaders still running; waits until they are gone and removes its
// cgroups. Returns how many processes it ended. Throws data::Error naming the session when some
// still run after `patience` (the caller must not start their ranges again).
int end_session_leftovers(const SessionLeftovers& leftovers, data::Micros patience);

}  // namespace millrace::cluster_adapter
