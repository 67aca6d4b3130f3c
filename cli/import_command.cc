// `millrace import`: reads a recorded trace (or a cost profile) into a trace store.
#include <cstdint>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/help_layout.h"
#include "cli/progress_display.h"
#include "data/error.h"
#include "data/importers/importers.h"
#include "data/importers/read_progress.h"
#include "data/readable_duration.h"
#include "data/trace_store.h"

namespace millrace::cli {

namespace {

struct ImportArgs {
  std::string store;
  std::string format;
  std::string file;
  bool quiet = false;
  data::importers::ImportOptions options;
};

void run_import(const ImportArgs& args) {
  data::importers::find_import_format(args.format);  // before creating the store
  auto store = data::TraceStore::open(args.store);
  // Streamed in batches and published at once: a malformed file leaves the store as it was.
  ProgressDisplay progress(args.quiet);
  data::importers::ImportResult result;
  {
    const data::importers::ScopedReadProgress reading(
        progress.report("import", "bytes"),
        [&progress](const std::string& phase, const std::string& unit) { return progress.report("import: " + phase, unit); });
    result = data::importers::import_file(store, args.format, args.file, args.options);
  }
  progress.finish();
  if (result.run_id == 0) {
    std::cout << "imported cost profile '" << result.name << "' ("
              << data::counted(static_cast<std::int64_t>(result.profile_bins), "bin") << ") into " << args.store
              << "\n";
    return;
  }
  std::cout << "imported run " << result.run_id << " '" << result.name
            << "': " << data::counted(static_cast<std::int64_t>(result.items), "item") << ", "
            << data::counted(static_cast<std::int64_t>(result.attempts), "attempt");
  if (!args.options.nodes_file.empty()) {
    std::cout << ", " << data::counted(static_cast<std::int64_t>(result.node_arrivals), "node arrival");
  }
  std::cout << " into " << args.store << "\n";
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  auto* cmd = app.add_subcommand("import", "Import a recorded trace (or a cost profile) into a trace store");
  cmd->add_option("--store", args->store, "Trace store file (created when missing)")->required();
  cmd->add_option("--format", args->format, "Format: " + data::importers::import_format_list(", "))->required();
  cmd->add_option("file", args->file, "Input file (ethereum: the directory of export-*.csv)")->required();
  cmd->add_option("--name", args->options.name, "Run or profile name (default: the file name)");
  cmd->add_option("--series", args->options.series, "ethereum only: size (default) | gas");
  cmd->add_option("--nodes", args->options.nodes_file,
                  "The run's node arrivals and departures: CSV node,pool,created_s,ready_s,... "
                  "(data/importers/node_arrivals_csv.h)");
  add_quiet_flag(cmd, args->quiet);
  set_help_groups(*cmd, {{"What to import", {"--format", "--name", "--series", "--nodes"}},
                         {kOutputGroup, {"--store"}}});
  set_help_examples(
      *cmd, {{"The bundled Stellar catch-up, as run 'pcv2'",
              "millrace import --store out/t.db --format stellar-log --name pcv2 "
              "data/sets/stellar-pcv2-2024-11/stellar-supercluster.log"},
             {"A per-range CSV of pods and its nodes' arrivals",
              "millrace import --store out/t.db --format csv --name pods examples/pods.csv"},
             {"A per-block cost profile (no run: `fit --profile` turns it into a model)",
              "millrace import --store out/t.db --format ethereum data/sets/ethereum-daily-2015-2018"}});
  cmd->callback([args] { run_import(*args); });
}

}  // namespace millrace::cli
