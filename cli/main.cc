// The `millrace` executable: wires the subcommands together, redacts all its output
// (data/redaction.h) and turns errors into one line on stderr and a non-zero exit.
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/current_step.h"
#include "data/error.h"
#include "data/redaction.h"

int main(int argc, char** argv) {
  // Everything millrace prints, whoever prints it, goes through the one redaction layer.
  millrace::data::RedactedStream redacted_out(std::cout);
  millrace::data::RedactedStream redacted_err(std::cerr);
  CLI::App app{"millrace: plan, simulate and run batch jobs cut into ranges"};
  app.require_subcommand(1);
  millrace::cli::add_partition_command(app);
  millrace::cli::add_fit_command(app);
  millrace::cli::add_import_command(app);
  millrace::cli::add_runs_command(app);
  millrace::cli::add_show_command(app);
  millrace::cli::add_export_command(app);
  millrace::cli::add_simulate_command(app);
  millrace::cli::add_run_command(app);
  millrace::cli::add_push_command(app);
  millrace::cli::add_watch_command(app);
  millrace::cli::add_report_command(app);
  millrace::cli::add_compare_command(app);
  millrace::cli::add_plan_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "millrace: " << e.what() << " (see --help)\n";
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
