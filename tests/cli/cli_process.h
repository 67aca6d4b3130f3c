// Runs the `millrace` executable (MILLRACE_CLI) as a child process for end-to-end tests, its
// stdout and stderr captured into files of a test folder, so a test can signal it mid-run; and
// a fixture with that folder and a trace store in it, for `millrace run` tests.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "data/trace_store.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cli_test {

struct CliResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// True while `pid` runs (a zombie waiting for its reaper does not).
inline bool process_runs(pid_t pid) {
  std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Starts the CLI with `args`, its output into `dir`/stdout and `dir`/stderr; returns its pid.
inline pid_t start_cli(const std::filesystem::path& dir, const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(MILLRACE_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!freopen((dir / "stdout").c_str(), "w", stdout) || !freopen((dir / "stderr").c_str(), "w", stderr)) _exit(126);
    execv(MILLRACE_CLI, argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for a CLI started by start_cli() and reads what it printed.
inline CliResult finish_cli(const std::filesystem::path& dir, pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return CliResult{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_text(dir / "stdout"),
                   read_text(dir / "stderr")};
}

// A fresh folder per test (named after the test) holding the CLI's output and a trace store.
class CliRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = scratch.path();
    store = (dir / "trace.db").string();
  }

  // `millrace run` of `ranges` ranges of ten units on `workers` local workers.
  std::vector<std::string> run_args(const std::string& command, int ranges, int workers) {
    return {"run",       "--cluster", "local",     "--store",   store,   "--span",    "0:" + std::to_string(ranges * 10 - 1),
            "--partitioner", "uniform", "--range-count", std::to_string(ranges), "--workers", std::to_string(workers),
            "--command", command};
  }
  pid_t start(const std::vector<std::string>& args) { return start_cli(dir, args); }
  CliResult finish(pid_t pid) { return finish_cli(dir, pid); }
  CliResult run(const std::vector<std::string>& args) { return finish(start(args)); }

  // Succeeded attempts per item of run 1, read from the store.
  std::map<std::string, int> successes() {
    std::map<std::string, int> counts;
    for (const data::Attempt& a : data::TraceStore::open(store).attempts(1)) {
      if (a.outcome == data::Outcome::kSucceeded) ++counts[a.item_id];
    }
    return counts;
  }

  test_support::ScratchDir scratch;
  std::filesystem::path dir;
  std::string store;
};

}  // namespace millrace::cli_test
