// `millrace show RUN`: a stored run in a few figures (cli/run_summary_text.h); `millrace show
// PROFILE`, when no run has that name: a cost profile's span, total work and densest stretch
// (data/profile_summary.h). `millrace show --experiment ID`: the experiment file a stored
// comparison was run from, byte for byte on stdout (the command-line options given beside it on
// stderr), so `show --experiment ID > FILE` and `compare -f FILE` (or `plan -f FILE`) run it again.
// Given prices (--worker-price, or --node-pools / --machine with prices), a run's first line says
// what it cost (sim/run_cost.h's recorded_run_cost: its workers, or its recorded nodes). `millrace
// show --comparison ID`: the rows a stored comparison kept (sim/comparison_store.h): what each
// chose, its makespan band and, when priced, its cost mean / p90 as compare printed it; with
// --json, the same fields as compare --json gives them.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/experiment_file.h"
#include "cli/help_layout.h"
#include "cli/option_checks.h"
#include "cli/resource_options.h"
#include "cli/run_summary_text.h"
#include "data/readable_duration.h"
#include "data/model_span.h"
#include "data/profile_summary.h"
#include "data/run_summary.h"
#include "data/error.h"
#include "data/trace_store.h"
#include "sim/comparison_store.h"

namespace millrace::cli {

namespace {

void print_profile(const data::CostProfile& profile) {
  const data::ProfileSummary s = data::summarise_profile(profile);
  const double mean = s.total_work / static_cast<double>(s.span.count);
  char line[256];
  std::cout << "profile '" << profile.name << "' (units " << profile.units << ", from " << profile.source << ")\n";
  std::snprintf(line, sizeof line, "  span:            %s (%lld %s, %zu bins)\n", data::span_text(s.span).c_str(),
                static_cast<long long>(s.span.count), profile.units.c_str(), s.bins);
  std::cout << line;
  std::snprintf(line, sizeof line, "  total work:      %s (mean %.3f us per unit)\n",
                data::readable_duration(static_cast<data::Micros>(s.total_work)).c_str(), mean);
  std::cout << line;
  std::snprintf(line, sizeof line, "  densest stretch: %s (%lld %s) holds %s, %.1f%% of the work (%.1fx the mean)\n",
                data::span_text(s.densest).c_str(), static_cast<long long>(s.densest.count), profile.units.c_str(),
                data::readable_duration(static_cast<data::Micros>(s.densest_work)).c_str(), 100 * s.densest_work / s.total_work,
                s.densest_work / (mean * static_cast<double>(s.densest.count)));
  std::cout << line;
}

bool has_run(const data::TraceStore& store, const std::string& ref) {
  const std::vector<data::Run> runs = store.runs();
  return std::any_of(runs.begin(), runs.end(),
                     [&](const data::Run& r) { return r.name == ref || std::to_string(r.id) == ref; });
}

void print_experiment(const data::TraceStore& store, std::int64_t comparison) {
  const std::optional<sim::ExperimentSource> experiment = sim::stored_experiment(store, comparison);
  if (!experiment) {
    throw data::Error(store.path(), "comparison " + std::to_string(comparison) +
                                        " was run from the command line alone, not from an experiment file");
  }
  if (sha256_hex(experiment->text) != experiment->sha256) {
    throw data::Error(store.path(), "comparison " + std::to_string(comparison) +
                                        ": the stored experiment text does not match its SHA-256 " + experiment->sha256);
  }
  std::cout << experiment->text << std::flush;
  if (!experiment->overrides.empty()) {
    std::string given;
    for (const std::string& word : experiment->overrides) given += " " + word;
    std::cerr << "comparison " << comparison << " ran " << experiment->file << " (SHA-256 " << experiment->sha256
              << ") with these options beside it on the command line:" << given << "\n";
  }
}

// The stored rows of comparison `id`: a table, or JSON with compare --json's names.
void print_comparison(const data::TraceStore& store, std::int64_t id, bool json) {
  const std::vector<sim::ComparisonRow> rows = sim::stored_rows(store, id);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const sim::ComparisonRow& r : rows) {
      out.push_back({{"partitioner", r.partitioner},
                     {"workers", r.workers},
                     {"order", r.order},
                     {"ranges", r.ranges},
                     {"replicas", r.replicas},
                     {"makespan_mean_us", r.makespan_mean},
                     {"makespan_p10_us", r.makespan_p10},
                     {"makespan_p50_us", r.makespan_p50},
                     {"makespan_p90_us", r.makespan_p90}});
      if (r.deadline_met) out.back()["deadline_met"] = *r.deadline_met;
      if (r.cost) out.back()["cost"] = sim::to_json(*r.cost);
    }
    std::cout << nlohmann::json{{"comparison", id}, {"rows", out}}.dump(2) << "\n";
    return;
  }
  data::Micros largest = 0;
  bool priced = false, planned = false;
  for (const sim::ComparisonRow& r : rows) {
    largest = std::max(largest, r.makespan_p90);
    priced = priced || r.cost.has_value();
    planned = planned || r.deadline_met.has_value();
  }
  const data::DisplayUnit unit = data::display_unit(largest);
  std::cout << "comparison " << id << ": " << data::counted(static_cast<std::int64_t>(rows.size()), "row")
            << " as stored; times in " << unit.name << "; mean, p10, p50, p90 of the makespan over replicas"
            << (planned ? "; met = share of replicas meeting the deadline" : "")
            << (priced ? "; cost = what the run costs, mean and p90 over replicas" : "") << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "%4s %-14s %7s %-9s %6s %8s %9s %9s %9s %9s%s%s\n", "row", "partitioner", "workers",
                "order", "ranges", "replicas", "mean", "p10", "p50", "p90", planned ? "    met" : "",
                priced ? "  cost mean / p90" : "");
  std::cout << line;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const sim::ComparisonRow& r = rows[i];
    std::snprintf(line, sizeof line, "%4zu %-14s %7d %-9s %6zu %8d %9.3f %9.3f %9.3f %9.3f", i + 1,
                  r.partitioner.c_str(), r.workers, r.order.c_str(), r.ranges, r.replicas, unit.of(r.makespan_mean),
                  unit.of(r.makespan_p10), unit.of(r.makespan_p50), unit.of(r.makespan_p90));
    std::cout << line;
    if (planned) {
      std::snprintf(line, sizeof line, " %6.0f%%", 100 * r.deadline_met.value_or(0));
      std::cout << line;
    }
    std::cout << (r.cost ? "  " + sim::mean_and_p90_text(*r.cost) : "") << "\n";
  }
}

// "cost 12.34 USD (...)" of the run when prices are given; nothing otherwise.
void print_recorded_cost(const data::TraceStore& store, const StoredRun& stored, const ResourceOptions& prices) {
  const sim::Pricing pricing = pricing_of(prices);
  const std::vector<sim::NodePool> pools = pools_of(prices, 1);
  if (!pricing.worker_price && pools.empty()) return;
  if (pricing.worker_price && !pools.empty()) {
    throw data::Error("--worker-price " + prices.worker_price, "prices workers: give it or node pools, not both");
  }
  const sim::RunCost cost = sim::recorded_run_cost(stored.summary, store.node_arrivals(stored.run.id), pricing, pools);
  std::cout << "cost " << sim::cost_text(cost) << " ("
            << (pools.empty() ? data::counted(static_cast<std::int64_t>(stored.summary.workers), "worker") +
                                    " from the first start to the last end"
                              : "recorded nodes from their creation to their departure, else to the last end")
            << ")\n";
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto store_path = std::make_shared<std::string>();
  auto run_ref = std::make_shared<std::string>();
  auto comparison = std::make_shared<std::int64_t>(0);
  auto rows_of = std::make_shared<std::int64_t>(0);
  auto json = std::make_shared<bool>(false);
  auto prices = std::make_shared<ResourceOptions>();
  auto* cmd = app.add_subcommand(
      "show", "Summarize a run (items, work, longest ranges, failures, workers, stragglers) or a cost profile");
  cmd->add_option("--store", *store_path, "Trace store file")->required();
  auto* run = cmd->add_option("run", *run_ref, "Run id or name, or a cost profile's name");
  cmd->add_option("--experiment", *comparison,
                  "Print the experiment file comparison ID was run from (ids: `millrace runs`), byte for byte")
      ->excludes(run)
      ->transform(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--comparison", *rows_of,
                  "Print the rows comparison ID stored: its makespan band and, when priced, its cost")
      ->excludes(run)
      ->excludes("--experiment")
      ->transform(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  cmd->add_flag("--json", *json, "With --comparison: its rows as JSON, named as compare --json names them");
  cmd->add_option("--node-pools", prices->node_pools,
                  "Price the run's recorded nodes by their pools' price columns (a node pools file)");
  cmd->add_option("--machine", prices->machine,
                  "Price every recorded node alike: ...,price=P[,billing=RULE], e.g. cpu=4,price=0.19")
      ->each([](const std::string& text) { parse_machine(text); });
  add_price_options(*cmd, *prices);
  set_help_groups(*cmd, {{"What to show", {"--store", "--experiment", "--comparison", "--json"}},
                         {"Prices", {"--node-pools", "--machine", "--worker-price", "--worker-billing", "--currency"}}});
  set_help_examples(*cmd, {{"A recorded run: items, failures, worker-hours, longest ranges, stragglers",
                            "millrace show --store out/t.db pcv2"},
                           {"A real run planned with a model: also predicted against actual",
                            "millrace show --store out/runs.db planned"},
                           {"The experiment file comparison 3 ran from, byte for byte",
                            "millrace show --store out/t.db --experiment 3 > again.yaml"}});
  cmd->callback([store_path, run_ref, comparison, rows_of, json, prices] {
    auto store = data::TraceStore::open_for_reading(*store_path);
    if (*comparison > 0) {
      print_experiment(store, *comparison);
      return;
    }
    if (*rows_of > 0) {
      print_comparison(store, *rows_of, *json);
      return;
    }
    if (*json) throw data::Error("--json", "goes with --comparison ID");
    if (run_ref->empty()) {
      throw data::Error("millrace show", "give a run (id or name), a profile, --experiment ID or --comparison ID");
    }
    const std::vector<std::string> profiles = store.profile_names();
    if (!has_run(store, *run_ref) && std::find(profiles.begin(), profiles.end(), *run_ref) != profiles.end()) {
      print_profile(store.profile(*run_ref));
      return;
    }
    const StoredRun stored = read_stored_run(store, store.find_run(*run_ref));
    print_recorded_cost(store, stored, *prices);
    print_stored_run(stored, std::cout);
  });
}

}  // namespace millrace::cli
