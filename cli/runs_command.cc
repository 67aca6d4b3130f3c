// `millrace runs`: lists the runs of a trace store.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "data/trace_store.h"

namespace millrace::cli {

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
    for (const auto& name : store.profile_names()) {
      auto profile = store.profile(name);
      std::cout << "profile " << name << ": " << profile.bins.size() << " bins over "
                << (profile.bins.empty() ? 0 : profile.bins.back().range.end() - profile.bins.front().range.first)
                << " " << profile.units << "\n";
    }
  });
}

}  // namespace millrace::cli
