// Drives Debian's chromium headless for the browser tests: loads a page, lets its scripts run
// for a budget of virtual time (fetches pause the clock until they are answered), then dumps the
// DOM or takes a screenshot. Each load gets a fresh profile folder, and the flags this closed
// network needs (no background networking, component updates or sync, no first-run work).
// The binary is MILLRACE_CHROMIUM (found by CMake); a missing one is a test failure, not a skip:
// the bootstrap installs it (scripts/install-deps.sh), and -DMILLRACE_BROWSER_TESTS=OFF builds
// without these tests.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace millrace::test_support {

class HeadlessChromium {
 public:
  // `work_dir`: where the profiles and chromium's own output go.
  explicit HeadlessChromium(std::filesystem::path work_dir) : work_dir_(std::move(work_dir)) {}

  // Empty when the browser can be started, else why not (for an ASSERT).
  static std::string missing() {
    if (access(MILLRACE_CHROMIUM, X_OK) == 0) return "";
    return std::string("chromium is not installed at ") + MILLRACE_CHROMIUM +
           ": install it (bash scripts/install-deps.sh) or configure with -DMILLRACE_BROWSER_TESTS=OFF";
  }

  // The DOM after `budget_ms` of virtual time.
  std::string dump_dom(const std::string& url, int budget_ms = 3000) {
    return run(url, budget_ms, {"--dump-dom"});
  }

  // A PNG of the page, `width` x `height` pixels, at `png`.
  void screenshot(const std::string& url, const std::filesystem::path& png, int width, int height,
                  int budget_ms = 3000) {
    run(url, budget_ms,
        {"--screenshot=" + png.string(), "--window-size=" + std::to_string(width) + "," + std::to_string(height),
         "--hide-scrollbars"});
  }

 private:
  std::string run(const std::string& url, int budget_ms, const std::vector<std::string>& command) {
    const int n = ++loads_;
    const std::filesystem::path profile = work_dir_ / ("chromium-profile-" + std::to_string(n));
    const std::filesystem::path out = work_dir_ / ("chromium-" + std::to_string(n) + ".out");
    const std::filesystem::path err = work_dir_ / ("chromium-" + std::to_string(n) + ".err");
    std::filesystem::remove_all(profile);
    std::vector<std::string> args = {MILLRACE_CHROMIUM,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-quic",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--no-first-run",
                                     "--user-data-dir=" + profile.string(),
                                     "--virtual-time-budget=" + std::to_string(budget_ms)};
    args.insert(args.end(), command.begin(), command.end());
    args.push_back(url);
    pid_t pid = fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
      execv(argv[0], argv.data());
      _exit(127);
    }
    EXPECT_GT(pid, 1) << "fork failed";
    if (pid <= 1) return "";
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);  // only the browser this helper started
        waitpid(pid, &status, 0);
        ADD_FAILURE() << "chromium did not finish loading " << url << " within 120 s";
        return "";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "chromium failed on " << url << ": " << read(err);
    std::filesystem::remove_all(profile);
    return read(out);
  }

  static std::string read(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path work_dir_;
  int loads_ = 0;
};

}  // namespace millrace::test_support
