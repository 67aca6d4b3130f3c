// `millrace runs`: lists the runs of a trace store, then its stored comparisons (`compare`,
// `plan`; with the hash of the experiment file each was run from) and its cost profiles.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "data/model_span.h"
#include "data/run_sessions.h"
#include "data/trace_store.h"
#include "sim/comparison_store.h"

namespace millrace::cli {

namespace {

void print_comparisons(const data::TraceStore& store) {
  const std::vector<sim::StoredComparison> comparisons = sim::stored_comparisons(store);
  if (comparisons.empty()) return;
  std::cout << "\ncomparisons (`millrace show --experiment ID` prints the experiment file of one run from a file):\n"
            << std::left << std::setw(6) << "id" << std::setw(9) << "kind" << std::setw(25) << "created" << std::right
            << std::setw(6) << "rows" << "  experiment (SHA-256)\n";
  for (const sim::StoredComparison& c : comparisons) {
    std::cout << std::left << std::setw(6) << c.id << std::setw(9) << c.kind << std::setw(25)
              << data::utc_text(c.created) << std::right << std::setw(6) << c.rows << "  "
              << (c.experiment_sha256.empty() ? "-" : c.experiment_sha256) << "\n";
  }
}

}  // namespace

void add_runs_command(CLI::App& app) {
  auto store_path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("runs", "List the runs of a trace store");
  cmd->add_option("--store", *store_path, "Trace store file")->required();
  cmd->callback([store_path] {
    auto store = data::TraceStore::open_for_reading(*store_path);
    auto runs = store.runs();
    int name_width = 6;
    for (const auto& run : runs) name_width = std::max(name_width, static_cast<int>(run.name.size()) + 2);
    std::cout << std::left << std::setw(6) << "id" << std::setw(name_width) << "name" << std::setw(10) << "source"
              << std::setw(10) << "units" << std::right << std::setw(8) << "items" << std::setw(10) << "attempts"
              << "\n";
    for (const auto& run : runs) {
      std::cout << std::left << std::setw(6) << run.id << std::setw(name_width) << run.name << std::setw(10)
                << to_string(run.source) << std::setw(10) << run.units << std::right << std::setw(8)
                << store.count_rows("items", run.id) << std::setw(10) << store.count_rows("attempts", run.id)
                << "\n";
    }
    print_comparisons(store);
    const std::vector<std::string> profiles = store.profile_names();
    if (profiles.empty()) return;
    std::cout << "\ncost profiles (`millrace show NAME`, `millrace fit --profile NAME`):\n";
    for (const auto& name : profiles) {
      const data::CostProfile profile = store.profile(name);
      std::cout << "  " << name << ": " << profile.bins.size() << " bins";
      if (!profile.bins.empty()) {
        const data::Range span{profile.bins.front().range.first,
                               profile.bins.back().range.end() - profile.bins.front().range.first};
        std::cout << " over " << data::span_text(span) << " (" << span.count << " " << profile.units << ")";
      }
      std::cout << "\n";
    }
  });
}

}  // namespace millrace::cli
