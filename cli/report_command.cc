// `millrace report`: render the notebooks' figures of a trace store to PNG files and one HTML
// page, without Jupyter, for users who only want the pictures. The figures are drawn by the same
// Python module the notebooks use (notebooks/millrace_plots.py), run with python3 as a child
// process, so the report and the notebooks never disagree.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/help_layout.h"
#include "cli/option_checks.h"
#include "data/error.h"

namespace millrace::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kModule = "millrace_plots.py";
constexpr const char* kInstallHint = "install them with scripts/install-report-deps.sh (Debian's python3-matplotlib, python3-pandas)";

struct ReportOptions {
  std::string store;
  std::string output;
  std::string model;
  std::string run;
  std::int64_t compare = 0;  // 0: the latest made with --model and --run (else the latest)
  std::int64_t plan = 0;
};

// The plotting module: $MILLRACE_NOTEBOOKS, else notebooks/ of the source tree this executable
// was built from, else beside the executable's tree (build/cli/millrace -> notebooks/).
fs::path plotting_module() {
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("MILLRACE_NOTEBOOKS")) candidates.push_back(fs::path(dir) / kModule);
  candidates.push_back(fs::path(MILLRACE_SOURCE_DIR) / "notebooks" / kModule);
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    for (fs::path dir = exe.parent_path(); dir.has_relative_path(); dir = dir.parent_path()) {
      candidates.push_back(dir / "notebooks" / kModule);
    }
  }
  for (const fs::path& candidate : candidates) {
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  throw data::Error(kModule, "plotting module not found (looked in $MILLRACE_NOTEBOOKS, " +
                                 std::string(MILLRACE_SOURCE_DIR) + "/notebooks and above the executable)");
}

// The interpreter: $MILLRACE_PYTHON, else Debian's /usr/bin/python3 (where the Debian packages
// install matplotlib), else python3 from PATH.
std::string python() {
  if (const char* chosen = std::getenv("MILLRACE_PYTHON")) return chosen;
  std::error_code error;
  return fs::exists("/usr/bin/python3", error) ? "/usr/bin/python3" : "python3";
}

// Runs argv (no shell) and returns its exit status; 127 when it could not be started.
int run_process(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw data::Error(argv[0], "cannot start a process");
  if (pid == 0) {
    setenv("MPLBACKEND", "Agg", 1);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw data::Error(argv[0], "lost track of the process");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void run_report(const ReportOptions& o) {
  std::error_code error;
  if (!fs::is_regular_file(o.store, error)) throw data::Error(o.store, "no such trace store");
  if (!o.model.empty() && !fs::is_regular_file(o.model, error)) throw data::Error(o.model, "no such cost model file");
  const fs::path module = plotting_module();
  const std::string interpreter = python();
  const int check = run_process({interpreter, "-c", "import matplotlib, pandas"});
  if (check == 127) throw data::Error(interpreter, "python3 not found; " + std::string(kInstallHint));
  if (check != 0) throw data::Error(interpreter, "cannot import matplotlib and pandas; " + std::string(kInstallHint));
  std::vector<std::string> argv = {interpreter, module.string(), "--store", o.store, "-o", o.output};
  if (!o.model.empty()) argv.insert(argv.end(), {"--model", o.model});
  if (!o.run.empty()) argv.insert(argv.end(), {"--run", o.run});
  if (o.compare > 0) argv.insert(argv.end(), {"--compare", std::to_string(o.compare)});
  if (o.plan > 0) argv.insert(argv.end(), {"--plan", std::to_string(o.plan)});
  if (run_process(argv) != 0) throw data::Error(o.store, "report failed (see the message above)");
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Render the notebooks' figures of a trace store to PNG files and an HTML page (no Jupyter)");
  cmd->add_option("--store", options->store, "trace store (SQLite file)")->required();
  cmd->add_option("-o,--output", options->output, "directory for the PNG files and index.html")->required();
  cmd->add_option("--model", options->model, "cost model JSON (from `millrace fit`) for the cost model figures");
  cmd->add_option("--run", options->run, "run (id or name) of the recorded-run figures (default: first recorded)");
  cmd->add_option("--compare", options->compare,
                  "the stored compare to draw (its id, see `millrace runs`; default: the latest made with --model "
                  "and on --run, else the latest)")
      ->transform(whole_number(1));
  cmd->add_option("--plan", options->plan, "the stored plan to draw (its id; default as --compare's)")
      ->transform(whole_number(1));
  set_help_groups(*cmd, {{"What to draw", {"--store", "--model", "--run", "--compare", "--plan"}},
                         {kOutputGroup, {"-o"}}});
  set_help_examples(
      *cmd, {{"Every figure of the main job: its run, cost model, compare and plan",
              "millrace report --store out/main-job.db --model out/main-job-model.json --run pcv2-2024-11 "
              "-o out/report"},
             {"A chosen compare and plan (ids from `millrace runs`)",
              "millrace report --store out/t.db --compare 1 --plan 2 -o out/report"}});
  cmd->callback([options] { run_report(*options); });
}

}  // namespace millrace::cli
