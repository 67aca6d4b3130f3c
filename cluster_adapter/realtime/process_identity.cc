#include "cluster_adapter/realtime/process_identity.h"

#include <unistd.h>

#include <array>
#include <fstream>
#include <sstream>
#include <vector>

namespace millrace::cluster_adapter {

namespace {

// The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses),
// numbered from 3 (the state) as in proc(5); empty when the process does not exist.
std::vector<std::string> stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  std::size_t close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// Field `n` (proc(5) numbering) of a running (not zombie) process.
std::optional<std::string> running_field(pid_t pid, std::size_t n) {
  std::vector<std::string> fields = stat_fields(pid);
  if (fields.size() < n - 2 || fields[0] == "Z" || fields[0] == "X") return std::nullopt;
  return fields[n - 3];
}

}  // namespace

const std::string& boot_id() {
  static const std::string id = [] {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string text;
    std::getline(in, text);
    return text;
  }();
  return id;
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

std::optional<std::uint64_t> start_ticks(pid_t pid) {
  std::optional<std::string> field = running_field(pid, 22);
  if (!field) return std::nullopt;
  return std::stoull(*field);
}

std::optional<pid_t> process_group(pid_t pid) {
  std::optional<std::string> field = running_field(pid, 5);
  if (!field) return std::nullopt;
  return static_cast<pid_t>(std::stol(*field));
}

ProcessIdentity self_identity() {
  ProcessIdentity me;
  me.host = host_name();
  me.pid = getpid();
  me.start_ticks = start_ticks(me.pid).value_or(0);
  me.boot_id = boot_id();
  return me;
}

bool is_running_here(const ProcessIdentity& identity) {
  if (identity.host != host_name() || identity.boot_id != boot_id()) return false;
  std::optional<std::uint64_t> ticks = start_ticks(identity.pid);
  return ticks && *ticks == identity.start_ticks;
}

}  // namespace millrace::cluster_adapter
