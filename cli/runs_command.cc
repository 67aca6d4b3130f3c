// `millrace runs`: lists the runs of a trace store, then its stored comparisons (`compare`,
// `plan`; with the hash of the experiment file each was run from) and its cost profiles.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/help_layout.h"
#include "data/model_span.h"
#include "data/readable_duration.h"
#include "data/run_sessions.h"
#include "data/trace_store.h"
#include "sim/comparison_store.h"

namespace millrace::cli {

namespace {

// "96, 192, 384 workers", or "40 worker counts from 1 to 512" when there are more than six.
std::string worker_counts_text(const std::vector<int>& workers) {
  if (workers.empty()) return "no worker counts";
  if (workers.size() > 6) {
    return std::to_string(workers.size()) + " worker counts from " + std::to_string(workers.front()) + " to " +
           std::to_string(workers.back());
  }
  std::vector<std::string> counts;
  for (int w : workers) counts.push_back(std::to_string(w));
  return CLI::detail::join(counts, ", ") + (workers.size() == 1 && workers[0] == 1 ? " worker" : " workers");
}

// "pool 'machine'", or "pools 'standard', 'cheap'".
std::string pools_text(const std::vector<std::string>& pools) {
  std::vector<std::string> quoted;
  for (const std::string& pool : pools) quoted.push_back("'" + pool + "'");
  return (pools.size() == 1 ? "pool " : "pools ") + CLI::detail::join(quoted, ", ");
}

// What a node plan searched: "1 to 16 nodes of pool 'machine' (6 counts)", or for a mix
// "24 mixes of pools 'standard', 'cheap' (1 to 9 nodes in all)".
std::string node_counts_text(const sim::StoredComparison& c) {
  const std::string range = c.node_counts.empty() ? "no nodes"
                                                  : std::to_string(c.node_counts.front()) + " to " +
                                                        std::to_string(c.node_counts.back()) + " nodes";
  if (c.pools.size() > 1) {
    return data::counted(static_cast<int>(c.rows), "mix", "mixes") + " of " + pools_text(c.pools) + " (" + range + " in all)";
  }
  return range + " of " + pools_text(c.pools) + " (" + data::counted(static_cast<int>(c.node_counts.size()), "count") + ")";
}

// A plan's answer: "answer 96 workers", "answer 3 nodes", "answer 1 node of pool 'standard' and
// 4 of pool 'cheap'", or "no answer".
std::string answer_text(const sim::StoredComparison& c) {
  if (c.pools.empty()) return c.answer_workers ? "answer " + std::to_string(*c.answer_workers) + " workers" : "no answer";
  if (c.answer_nodes.empty()) return "no answer";
  if (c.pools.size() == 1) return "answer " + data::counted(c.answer_nodes.front(), "node");
  std::string text;
  for (std::size_t i = 0; i < c.pools.size(); ++i) {
    if (c.answer_nodes[i] == 0) continue;
    text += (text.empty() ? data::counted(c.answer_nodes[i], "node") : " and " + std::to_string(c.answer_nodes[i])) +
            " of pool '" + c.pools[i] + "'";
  }
  return "answer " + text;
}

// What a stored comparison compared: its candidates on which worker counts (a node plan: node
// counts of which pools) in which queue orders, for which run and model; for a plan also the
// deadline it searched for and its answer.
std::string compared_text(const sim::StoredComparison& c) {
  std::string text = CLI::detail::join(c.candidates, ", ") + " on " +
                     (c.pools.empty() ? worker_counts_text(c.workers) : node_counts_text(c)) + ", " +
                     (c.orders.size() == 1 ? "queue order " : "queue orders ") + CLI::detail::join(c.orders, ", ");
  if (c.deadline > 0) text += "; deadline " + data::readable_duration(c.deadline);
  if (c.kind == "plan") text += "; " + answer_text(c);
  if (!c.run.empty()) text += "; run " + c.run;
  return text + "; model " + (c.model.empty() ? "(none: a replay)" : c.model);
}

// "cost mean / p90 12.00 USD / 13.00 USD to 20.00 USD / 22.00 USD over its rows" (the cheapest
// row's to the dearest's, as compare's cost column reads); "" when it was not priced.
std::string cost_text(const std::vector<sim::ComparisonRow>& rows) {
  const sim::ComparisonRow* cheapest = nullptr;
  const sim::ComparisonRow* dearest = nullptr;
  for (const sim::ComparisonRow& r : rows) {
    if (!r.cost) continue;
    if (cheapest == nullptr || r.cost->mean < cheapest->cost->mean) cheapest = &r;
    if (dearest == nullptr || r.cost->mean > dearest->cost->mean) dearest = &r;
  }
  if (cheapest == nullptr) return "";
  const std::string low = sim::mean_and_p90_text(*cheapest->cost);
  if (cheapest->cost->mean == dearest->cost->mean) return "cost mean / p90 " + low;
  return "cost mean / p90 " + low + " to " + sim::mean_and_p90_text(*dearest->cost) + " over its rows";
}

void print_comparisons(const data::TraceStore& store) {
  const std::vector<sim::StoredComparison> comparisons = sim::stored_comparisons(store);
  if (comparisons.empty()) return;
  std::cout << "\ncomparisons (`millrace show --comparison ID` prints one's rows, `--experiment ID` the experiment "
               "file of one run from a file):\n"
            << std::left << std::setw(6) << "id" << std::setw(9) << "kind" << std::setw(25) << "created" << std::right
            << std::setw(6) << "rows" << "  experiment (SHA-256)\n";
  for (const sim::StoredComparison& c : comparisons) {
    std::cout << std::left << std::setw(6) << c.id << std::setw(9) << c.kind << std::setw(25)
              << data::utc_text(c.created) << std::right << std::setw(6) << c.rows << "  "
              << (c.experiment_sha256.empty() ? "-" : c.experiment_sha256) << "\n"
              << "      compared " << compared_text(c) << "\n";
    if (const std::string cost = cost_text(sim::stored_rows(store, c.id)); !cost.empty()) {
      std::cout << "      " << cost << " (`millrace show --comparison " << c.id << "` prints each row's)\n";
    }
  }
}

}  // namespace

void add_runs_command(CLI::App& app) {
  auto store_path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("runs", "List the runs of a trace store");
  cmd->add_option("--store", *store_path, "Trace store file")->required();
  set_help_groups(*cmd, {{"What to list", {"--store"}}});
  set_help_examples(*cmd, {{"The runs, stored comparisons and cost profiles of a store", "millrace runs --store out/t.db"},
                           {"What the main job stored: its run, and the compare and plan it made",
                            "millrace runs --store out/main-job.db"}});
  cmd->callback([store_path] {
    auto store = data::TraceStore::open_for_reading(*store_path);
    auto runs = store.runs();
    // Each text column as wide as its longest entry, two spaces after it.
    int id_width = 6, name_width = 6, source_width = 8, units_width = 7;
    for (const auto& run : runs) {
      id_width = std::max(id_width, static_cast<int>(std::to_string(run.id).size()) + 2);
      name_width = std::max(name_width, static_cast<int>(run.name.size()) + 2);
      source_width = std::max(source_width, static_cast<int>(std::string(to_string(run.source)).size()) + 2);
      units_width = std::max(units_width, static_cast<int>(run.units.size()) + 2);
    }
    std::cout << std::left << std::setw(id_width) << "id" << std::setw(name_width) << "name"
              << std::setw(source_width) << "source" << std::setw(units_width) << "units" << std::right
              << std::setw(8) << "items" << std::setw(10) << "attempts" << "\n";
    for (const auto& run : runs) {
      std::cout << std::left << std::setw(id_width) << run.id << std::setw(name_width) << run.name
                << std::setw(source_width) << to_string(run.source) << std::setw(units_width) << run.units
                << std::right << std::setw(8) << data::grouped(store.count_rows("items", run.id)) << std::setw(10)
                << data::grouped(store.count_rows("attempts", run.id)) << "\n";
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
