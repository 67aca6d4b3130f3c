// The `millrace` subcommands: each module of the CLI adds one subcommand to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace millrace::cli {

void add_partition_command(CLI::App& app);
void add_fit_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_runs_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_push_command(CLI::App& app);
void add_watch_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_sweep_worker_command(CLI::App& app);

}  // namespace millrace::cli
