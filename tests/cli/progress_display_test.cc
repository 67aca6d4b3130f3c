// The progress line of fit, compare, plan and import (cli/progress_display.h): its content through
// an injected stream and clock, nothing drawn when disabled; and end to end, nothing on stderr
// when it is not a terminal or with --quiet, the line when it is one (a pseudo-terminal made by
// util-linux `script`).
#include "cli/progress_display.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/cli/cli_runner.h"
#include "tests/cli/compare_fixture.h"

namespace millrace::cli {
namespace {

using test_support::CommandResult;
using test_support::run_cli;
using test_support::run_shell;

constexpr data::Micros kSecond = data::kMicrosPerSecond;

TEST(TaskProgress, RendersDoneOfTotalTheShareElapsedAndAnEtaFromTheRate) {
  // 30 of 120 in 10 s: 90 left at 3 per second, 30 s.
  EXPECT_EQ(render_task_progress("compare", "simulations", 30, 120, 10 * kSecond),
            "compare: 30/120 simulations (25%), 10s elapsed, ETA 30s");
  EXPECT_EQ(render_task_progress("fit", "steps", 0, 20, 0), "fit: 0/20 steps (0%), 0s elapsed, ETA ?");
  EXPECT_EQ(render_task_progress("fit", "steps", 20, 20, 61 * kSecond), "fit: 20/20 steps (100%), 1m01s elapsed, ETA 0s");
  // Bytes in MiB: 3 MiB of 12 MiB in 2 s.
  EXPECT_EQ(render_task_progress("import", "bytes", 3 << 20, 12 << 20, 2 * kSecond),
            "import: 3.0/12.0 MiB (25%), 2s elapsed, ETA 6s");
  EXPECT_EQ(render_task_progress("import", "bytes", 1 << 19, 0, kSecond), "import: 0.5/0.0 MiB, 1s elapsed");
}

TEST(TaskProgress, DrawsInPlaceAtMostEveryTenthOfASecondAndAlwaysTheEnd) {
  std::ostringstream out;
  data::Micros now = 0;
  {
    ProgressDisplay display(out, true, [&] { return now; });
    const data::ProgressReport report = display.report("plan", "simulations");
    ASSERT_TRUE(report);
    now = 50'000;
    report(1, 4);
    now = 80'000;
    report(2, 4);  // within 100 ms of the last line: not drawn
    now = 200'000;
    display.relabel("plan, worker count 2 (16)");
    report(3, 4);
    now = 210'000;
    report(4, 4);  // the end is drawn whatever the time
  }
  EXPECT_EQ(out.str(),
            "\rplan: 1/4 simulations (25%), 1s elapsed, ETA 1s\x1b[K"
            "\rplan, worker count 2 (16): 3/4 simulations (75%), 1s elapsed, ETA 1s\x1b[K"
            "\rplan, worker count 2 (16): 4/4 simulations (100%), 1s elapsed, ETA 0s\x1b[K\n");
}

TEST(TaskProgress, ADisabledDisplayGivesNoReportAndDrawsNothing) {
  std::ostringstream out;
  {
    ProgressDisplay display(out, false, [] { return data::Micros{0}; });
    EXPECT_FALSE(display.report("fit", "steps"));
    display.finish();
  }
  EXPECT_EQ(out.str(), "");
}

class ProgressOnTheCommandLine : public cli_test::CompareFixture {
 protected:
  // The command under a pseudo-terminal (stdout and stderr both on it): what it wrote there.
  static CommandResult on_a_terminal(const std::string& args) {
    return run_shell("script -qec '" + std::string(MILLRACE_CLI) + " " + args + "' /dev/null < /dev/null");
  }
};

TEST_F(ProgressOnTheCommandLine, NothingIsDrawnWhenStderrIsNotATerminalOrWithQuiet) {
  const std::string compare = "compare --store " + store_ + " --model " + model_ + " --workers 2,4 --replicas 3";
  const CommandResult piped = run_cli(compare);
  ASSERT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_EQ(piped.output.find('\r'), std::string::npos);
  EXPECT_EQ(piped.output.find("simulations"), std::string::npos);

  const CommandResult shown = on_a_terminal(compare);
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_NE(shown.output.find("\rcompare: 24/24 simulations (100%)"), std::string::npos) << shown.output;
  const CommandResult quiet = on_a_terminal(compare + " --quiet");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("simulations"), std::string::npos) << quiet.output;
  EXPECT_NE(quiet.output.find("stored as comparison"), std::string::npos) << quiet.output;

  const CommandResult plan = on_a_terminal("plan --store " + store_ + " --model " + model_ +
                                           " --deadline 10m --max-workers 8 --partitioners uniform");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("\rplan, worker count 1 ("), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find(" simulations (100%)"), std::string::npos) << plan.output;

  const std::string metrics = path("metrics.txt");
  std::string lines;
  for (int i = 0; i < 40; ++i) {
    lines += std::to_string(3999 - 100 * i) + "/100|" + std::to_string(i % 4) + "|0|" + std::to_string(100 + i) + "s\n";
  }
  std::FILE* f = std::fopen(metrics.c_str(), "w");
  std::fputs(lines.c_str(), f);
  std::fclose(f);
  const CommandResult imported = on_a_terminal("import --store " + store_ + " --format stellar-metrics --name rec " + metrics);
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  EXPECT_NE(imported.output.find("\rimport: 0.0/0.0 MiB (100%)"), std::string::npos) << imported.output;
  // After the bytes, the phases that follow them, each with its own steps: the line does not sit
  // at 100% of the bytes while the attempts are laid back to back and the run is published.
  const std::string durations = path("durations.csv");
  std::string rows = "item,worker,duration_s\n";
  for (int i = 0; i < 40; ++i) rows += "i" + std::to_string(i) + ",w" + std::to_string(i % 4) + ",1.5\n";
  std::FILE* csv = std::fopen(durations.c_str(), "w");
  std::fputs(rows.c_str(), csv);
  std::fclose(csv);
  const CommandResult laid_out = on_a_terminal("import --store " + store_ + " --format csv --name laid " + durations);
  ASSERT_EQ(laid_out.exit_code, 0) << laid_out.output;
  const std::size_t laid = laid_out.output.find("\rimport: laying attempts back to back: 40/40 attempts (100%)");
  const std::size_t published = laid_out.output.find("\rimport: publishing the run: 1/1 steps (100%)");
  EXPECT_NE(laid, std::string::npos) << laid_out.output;
  EXPECT_NE(published, std::string::npos) << laid_out.output;
  EXPECT_LT(laid_out.output.find("MiB (100%)"), laid) << laid_out.output;
  EXPECT_LT(laid, published) << laid_out.output;
  const CommandResult fitted = on_a_terminal("fit --store " + store_ + " --runs rec -o " + path("fit.json"));
  ASSERT_EQ(fitted.exit_code, 0) << fitted.output;
  // Two methods (durations alone, and with the recorded apply time), each cross-validating the 8
  // smoothness weights of the grid and 2 around the best.
  EXPECT_NE(fitted.output.find("\rfit: 20/20 cross-validation steps (100%)"), std::string::npos) << fitted.output;
  const CommandResult fitted_quietly =
      run_cli("fit --store " + store_ + " --runs rec --quiet -o " + path("fit.json"));
  EXPECT_EQ(fitted_quietly.output.find("cross-validation steps"), std::string::npos) << fitted_quietly.output;
}

}  // namespace
}  // namespace millrace::cli
