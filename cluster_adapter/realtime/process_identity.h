// Who a process is, in a form that survives its parent: pid, process group, start time (clock
// ticks since boot, /proc/PID/stat field 22) and the machine's boot id. A pid alone is reused;
// the pair (pid, start time) on the same boot names one process for good, so a later millrace
// can tell whether the process a store row names still runs or is long gone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace millrace::cluster_adapter {

struct ProcessIdentity {
  std::string host;
  pid_t pid = -1;
  std::uint64_t start_ticks = 0;
  std::string boot_id;
};

// /proc/sys/kernel/random/boot_id ("" when unreadable), read once.
const std::string& boot_id();
// This machine's host name.
std::string host_name();
// The start time of `pid` in clock ticks since boot; nullopt when no such process runs (a
// zombie, dead but not reaped, counts as not running).
std::optional<std::uint64_t> start_ticks(pid_t pid);
// The process group of `pid`; nullopt when it does not run.
std::optional<pid_t> process_group(pid_t pid);
// This process.
ProcessIdentity self_identity();
// True when `identity` names a process running now on this machine (same host, same boot,
// same pid and start time).
bool is_running_here(const ProcessIdentity& identity);

}  // namespace millrace::cluster_adapter
