// The `millrace` executable: wires the subcommands together (their --help laid out by
// cli/help_layout.h), redacts all its output (data/redaction.h) and turns errors into one line on
// stderr and a non-zero exit (a misspelt command or option with the one meant: cli/did_you_mean.h).
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/current_step.h"
#include "cli/did_you_mean.h"
#include "cli/help_layout.h"
#include "cli/version.h"
#include "data/error.h"
#include "data/redaction.h"

int main(int argc, char** argv) {
  // Everything millrace prints, whoever prints it, goes through the one redaction layer.
  millrace::data::RedactedStream redacted_out(std::cout);
  millrace::data::RedactedStream redacted_err(std::cerr);
  CLI::App app{"millrace: plan, simulate and run batch jobs cut into ranges"};
  app.require_subcommand(1);
  app.set_version_flag("--version", millrace::cli::version_text(), "Print millrace's version and exit");
  millrace::cli::use_help_layout(app);
  millrace::cli::add_import_command(app);
  millrace::cli::add_runs_command(app);
  millrace::cli::add_show_command(app);
  millrace::cli::add_export_command(app);
  millrace::cli::add_report_command(app);
  millrace::cli::add_fit_command(app);
  millrace::cli::add_partition_command(app);
  millrace::cli::add_simulate_command(app);
  millrace::cli::add_compare_command(app);
  millrace::cli::add_plan_command(app);
  millrace::cli::add_run_command(app);
  millrace::cli::add_push_command(app);
  millrace::cli::add_watch_command(app);
  millrace::cli::add_sweep_worker_command(app);
  millrace::cli::set_command_groups(
      app, {{"Recordings (import them, look at them, draw them)", {"import", "runs", "show", "export", "report"}},
            {"The cost model", {"fit"}},
            {"What-ifs (cut, simulate, compare, plan)", {"partition", "simulate", "compare", "plan"}},
            {"Real runs", {"run", "push", "watch", "sweep-worker"}}});
  millrace::cli::set_help_examples(
      app, {{"Import the bundled Stellar catch-up as run 'pcv2' (then `millrace show --store out/t.db pcv2`)",
             "millrace import --store out/t.db --format stellar-log --name pcv2 "
             "data/sets/stellar-pcv2-2024-11/stellar-supercluster.log"},
            {"Fit its cost model", "millrace fit --store out/t.db --runs pcv2 -o out/model.json"},
            {"The fewest workers that finish it in 24 h (each command's --help has its options and examples)",
             "millrace plan --store out/t.db --model out/model.json --run pcv2 --deadline 24h --max-workers 512"}});
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "millrace: " << millrace::cli::parse_error_text(app, e) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // What was allocated is freed by now: there is memory again to say what ran out of it.
    const std::string command = app.get_subcommands().empty() ? "" : " " + app.get_subcommands().front()->get_name();
    const std::string step = millrace::cli::CurrentStep::now();
    std::cerr << "millrace" << command << ": out of memory" << (step.empty() ? "" : " while " + step)
              << " (std::bad_alloc); ask for less (fewer ranges, workers, attempts or replicas)\n";
    return 1;
  } catch (const millrace::data::Error& e) {
    std::cerr << "millrace: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "millrace: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
