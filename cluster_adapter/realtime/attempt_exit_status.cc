#include "cluster_adapter/realtime/attempt_exit_status.h"

#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <iterator>

namespace millrace::cluster_adapter {

namespace {

// $1 is the command, $2 the status file. The command runs in a subshell, so nothing it does
// (exit, exec, traps of its own) keeps the recorder from writing; the positional parameters are
// cleared first, as the command would have found them under `sh -c`. A SIGTERM sent to the whole
// tree (a timeout, a cancel) reaches the command as usual (a subshell resets caught signals), while
// the recorder's trap only lets it outlive the signal to record what the command did.
constexpr const char* kRecorder =
    "trap : TERM; millrace_status_file=$2; millrace_command=$1; shift 2; (eval \"$millrace_command\"); "
    "millrace_exit=$?; echo $millrace_exit > \"$millrace_status_file\"; exit $millrace_exit";

}  // namespace

std::vector<std::string> recorded_command(const std::string& command, const std::string& status_file) {
  return {"/bin/sh", "-c", kRecorder, "millrace-attempt", command, status_file};
}

namespace {

std::optional<data::Micros> modified(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<data::Micros>(info.st_mtim.tv_sec) * data::kMicrosPerSecond + info.st_mtim.tv_nsec / 1000;
}

}  // namespace

std::optional<data::Micros> status_file_without_exit(const std::string& status_file) {
  if (read_recorded_exit(status_file)) return std::nullopt;
  return modified(status_file);
}

std::optional<RecordedExit> read_recorded_exit(const std::string& status_file) {
  std::ifstream in(status_file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // One write of "<code>\n", the code a shell's $?: 0 to 255.
  if (text.size() < 2 || text.size() > 4 || text.back() != '\n') return std::nullopt;
  int code = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    code = code * 10 + (text[i] - '0');
  }
  if (code > 255) return std::nullopt;
  const std::optional<data::Micros> ended = modified(status_file);
  if (!ended) return std::nullopt;
  return RecordedExit{code, *ended};
}

}  // namespace millrace::cluster_adapter
