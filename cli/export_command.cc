// `millrace export RUN`: writes a run's timing table as CSV or JSON (data/timing_table.h), and
// with --nodes its node arrivals (data/importers/node_arrivals_csv.h).
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/help_layout.h"
#include "data/error.h"
#include "data/importers/node_arrivals_csv.h"
#include "data/trace_store.h"
#include "data/whole_file.h"

namespace millrace::cli {

namespace {

struct ExportArgs {
  std::string store;
  std::string run;
  std::string format = "csv";
  std::string output;
  std::string nodes;
};

void run_export(const ExportArgs& args) {
  if (args.format != "csv" && args.format != "json") {
    throw data::Error("--format " + args.format, "unknown export format (known: csv, json)");
  }
  auto store = data::TraceStore::open_for_reading(args.store);
  auto id = store.find_run(args.run);
  std::optional<data::WholeFile> file;
  if (!args.output.empty()) file.emplace(args.output);
  std::ostream& out = file ? file->stream() : std::cout;
  if (args.format == "csv") {
    store.export_csv(id, out);
  } else {
    store.export_json(id, out);
  }
  if (file) {
    file->commit();
  } else if (!std::cout.flush()) {
    throw data::Error("stdout", "write failed");
  }
  if (!args.nodes.empty()) {
    data::WholeFile nodes(args.nodes);
    data::importers::write_node_arrivals_csv(store.node_arrivals(id), nodes.stream());
    nodes.commit();
  }
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Write a run's per-range timings as CSV or JSON");
  cmd->add_option("--store", args->store, "Trace store file")->required();
  cmd->add_option("run", args->run, "Run id or name")->required();
  cmd->add_option("--format", args->format, "csv (default) | json");
  cmd->add_option("-o,--output", args->output, "Output file (default: standard output)");
  cmd->add_option("--nodes", args->nodes, "Also write the run's node arrivals to this CSV (what import --nodes reads)");
  set_help_groups(*cmd, {{"What to export", {"--store"}}, {kOutputGroup, {"--format", "-o", "--nodes"}}});
  set_help_examples(*cmd, {{"A run's ranges as CSV, which `import --format csv` reads back",
                            "millrace export --store out/t.db pcv2 --format csv -o out/pcv2.csv"},
                           {"As JSON on standard output", "millrace export --store out/t.db pcv2 --format json"}});
  cmd->callback([args] { run_export(*args); });
}

}  // namespace millrace::cli
