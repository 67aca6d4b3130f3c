// The exit-status recorder every local attempt runs under: the command's exit code and a
// newline written to the status file when it ends (whatever the command does: exit, exec, its
// own traps), the file's time its end, the code passed on as the recorder's own; and the reader,
// which takes nothing but a complete status line.
#include "cluster_adapter/realtime/attempt_exit_status.h"
#include "tests/support/scratch_dir.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace millrace::cluster_adapter {
namespace {

namespace fs = std::filesystem;

data::Micros wall_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class AttemptExitStatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = scratch_.path();
    status = (dir / "a.1.status").string();
  }

  // Runs `command` under the recorder, its stdout into DIR/out; the recorder's exit code.
  int record(const std::string& command) {
    std::vector<std::string> argv = recorded_command(command, status);
    pid_t pid = fork();
    if (pid == 0) {
      if (!freopen((dir / "out").c_str(), "w", stdout)) _exit(126);
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    int wait_status = 0;
    waitpid(pid, &wait_status, 0);
    return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  }
  std::string out() {
    std::ifstream in(dir / "out");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  void write_status(const std::string& text) { std::ofstream(status, std::ios::binary) << text; }

  test_support::ScratchDir scratch_;
  fs::path dir;
  std::string status;
};

TEST_F(AttemptExitStatusTest, TheCommandsExitCodeIsWrittenWithItsEndAndPassedOn) {
  const data::Micros before = wall_now();
  EXPECT_EQ(record("sleep 0.05; exit 7"), 7);
  const data::Micros after = wall_now();
  std::optional<RecordedExit> exit = read_recorded_exit(status);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 7);
  // The file's time, coarse as file times are (a clock tick at most).
  EXPECT_GE(exit->ended, before + 50'000 - 20'000);
  EXPECT_LE(exit->ended, after);
  EXPECT_EQ(record("true"), 0);
  EXPECT_EQ(read_recorded_exit(status)->exit_code, 0);
}

TEST_F(AttemptExitStatusTest, ExecExitAndTrapsInTheCommandDoNotKeepTheStatusFromBeingWritten) {
  EXPECT_EQ(record("exec sh -c 'exit 4'"), 4);
  EXPECT_EQ(read_recorded_exit(status)->exit_code, 4);
  EXPECT_EQ(record("trap 'echo bye' EXIT; exit 5"), 5);
  EXPECT_EQ(read_recorded_exit(status)->exit_code, 5);
  EXPECT_EQ(out(), "bye\n");
  // Killed by a signal: 128 + the signal, as any shell reports it.
  EXPECT_EQ(record("sh -c 'kill -9 $$'"), 128 + 9);
  EXPECT_EQ(read_recorded_exit(status)->exit_code, 128 + 9);
}

TEST_F(AttemptExitStatusTest, TheCommandSeesNoPositionalParametersAndItsTextAsIs) {
  EXPECT_EQ(record("echo \"$# [$*]\" '$1' && printf '%s\\n' \"a  b\""), 0);
  EXPECT_EQ(out(), "0 [] $1\na  b\n");
}

TEST_F(AttemptExitStatusTest, OnlyACompleteStatusLineIsAStatus) {
  EXPECT_FALSE(read_recorded_exit(status));  // none yet
  for (const char* partial : {"", "3", "\n", "x\n", "-1\n", "256\n", "1 2\n", "12345\n"}) {
    write_status(partial);
    EXPECT_FALSE(read_recorded_exit(status)) << "'" << partial << "'";
  }
  write_status("255\n");
  ASSERT_TRUE(read_recorded_exit(status));
  EXPECT_EQ(read_recorded_exit(status)->exit_code, 255);
}

}  // namespace
}  // namespace millrace::cluster_adapter
