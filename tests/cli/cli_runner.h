// Runs the `millrace` binary (MILLRACE_CLI) with arguments and captures its exit code and its
// output (stdout and stderr together), for the end-to-end tests of the CLI. `shell_prefix` goes
// before the binary in the shell command line (an environment variable, a `ulimit`).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace millrace::test_support {

struct CommandResult {
  int exit_code = 0;
  std::string output;
};

// Runs a shell command line, capturing what it writes on stdout.
inline CommandResult run_shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  CommandResult result;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline CommandResult run_cli(const std::string& args, const std::string& shell_prefix = "") {
  return run_shell(shell_prefix + std::string(MILLRACE_CLI) + " " + args + " 2>&1");
}

}  // namespace millrace::test_support
