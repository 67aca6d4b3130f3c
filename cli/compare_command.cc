// `millrace compare`: simulate every partitioner x worker count x queue order (x replicas with
// failure injection) on a cost model, optionally next to a recorded run replayed as recorded,
// print the table against the lower bound, and store it in the trace store for the notebooks.
// With a recorded run, also what each queue order would have saved on it (cli/order_savings.h);
// the recorded plan's tip-first and lpt rows this needs are simulated and stored too.
#include <iostream>
#include <memory>

#include "cli/autoscale_options.h"
#include "cli/commands.h"
#include "cli/comparison_options.h"
#include "cli/comparison_ranking.h"
#include "cli/fit_scope.h"
#include "cli/current_step.h"
#include "cli/help_layout.h"
#include "cli/order_savings.h"
#include "cli/stored_plan.h"
#include "cli/progress_display.h"
#include "cli/sweep_fanout.h"
#include "data/model_span.h"
#include "data/readable_duration.h"
#include "sim/comparison_store.h"

namespace millrace::cli {

namespace {

struct CompareOptions {
  ComparisonOptions common;
  std::string workers = "32,64,128";
  scheduler::AutoscaleSettings autoscale;
  SweepOptions sweep;
};

// The queue orders of rows beyond the ones chosen (the recorded plan's tip-first and lpt rows the
// savings need), said beside the chosen ones so the header and the rows agree.
std::string added_orders(const sim::Comparison& comparison, const QueueOrderChoice& chosen) {
  std::string added;
  const std::string listed = "," + chosen.orders + ",";
  for (const sim::ComparisonRow& row : comparison.rows) {
    const bool known = listed.find("," + row.order + ",") != std::string::npos ||
                       ("," + added + ",").find("," + row.order + ",") != std::string::npos;
    if (!known) added += (added.empty() ? "" : ",") + row.order;
  }
  return added.empty() ? "" : "; the recorded run also in " + added + ", for the savings below";
}

void run_compare(CompareOptions& o, const CLI::App& command) {
  check_fan_out(o.sweep, command, o.common.store);
  const std::vector<int> workers = parse_workers(o.workers, "--workers");
  data::TraceStore store = comparison_store(o.common);
  const DigestedModel read = comparison_model(o.common, store);
  const data::CostModel& model = read.model;
  sim::ComparisonSpec spec = comparison_spec(o.common, store, &model);
  spec.workers = workers;
  const QueueOrderChoice order = queue_order_choice(o.common, spec.recorded_items);
  const int max_workers = *std::max_element(workers.begin(), workers.end());
  // Workers: set per combination; the type limits (--type-limit) stay.
  std::map<std::string, int> type_limits = std::move(spec.base.scheduler.params.type_limits);
  spec.base.scheduler.params = scheduler::policy_params(max_workers, o.autoscale);
  spec.base.scheduler.params.type_limits = std::move(type_limits);
  fan_out(o.sweep, command, o.common.store, spec);
  require_memory_for(spec, workers);
  CurrentStep step("comparing " + std::to_string(spec.partitioners.size() * workers.size()) + " partitions of " +
                   std::to_string(spec.span.count) + " units");
  ProgressDisplay progress(o.common.quiet);
  spec.progress = progress.report("compare", "simulations");
  sim::Comparison comparison = sim::run_comparison(spec);
  std::vector<OrderSaving> savings;
  data::RunSummary recorded;
  if (spec.recorded_items) {
    progress.relabel("compare: the recorded plan's queue orders");
    comparison = with_order_rows(spec, std::move(comparison));
    savings = order_savings(comparison, spec.base.pricing);
    sim::RecordedRun run = sim::load_run(store, o.common.run);
    recorded = data::summarize(run.items, run.attempts);
  }
  progress.finish();
  std::cerr << sim::survival_warnings(sim::survival_risks(comparison));
  std::int64_t stored = 0;
  if (!o.common.no_record) {
    nlohmann::json parameters = parameters_of(o.common, read.sha256);
    parameters["workers"] = o.workers;
    parameters["replicas"] = spec.replicas;
    parameters["partition"] = partition_settings(spec.partition);
    parameters.update(scheduler::to_json(o.autoscale));
    stored = sim::record_comparison(
        store, {"compare", model_label(o.common), spec.span, parameters, o.common.experiment}, comparison);
  }
  if (o.common.json) {
    nlohmann::json out = sim::to_json(comparison);
    out["span"] = {{"first", spec.span.first}, {"last", spec.span.last()}};
    out["queue_order"] = {{"orders", order.orders}, {"why", order.why}};
    out["cluster_source"] = spec.cluster_source;
    if (spec.recorded_items) {
      out["recorded"] = sim::to_json(recorded);
      out["savings"] = to_json(savings);
    }
    if (stored != 0) out["stored_comparison"] = stored;
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<RankedRow>> ranking = rank_by_workers(comparison);
  mark_extrapolated(ranking, spec);
  std::cout << ranking_text(ranking);
  for (const std::vector<RankedRow>& rows : ranking) {
    const sim::ComparisonRow& best = *rows.front().row;
    std::cout << extrapolated_ranges(o.common, spec, best, model.units(),
                                     best.partitioner + "'s ranges on " + data::counted(best.workers, "worker"));
  }
  std::cout << "(ranked by the median makespan over " << data::counted(spec.replicas, "replica")
            << "; beyond the spread: its p10 above the best's p90)\n\n";
  std::cout << "span: " << data::span_reading(spec.span, model.units()) << ", " << data::grouped(spec.span.count) << " "
            << model.units() << "; " << data::counted(spec.replicas, "replica") << " per combination, seed " << spec.seed
            << "\n";
  std::cout << "queue order: " << order.orders << " (" << order.why << ")" << added_orders(comparison, order) << "\n";
  std::cout << spec.cluster_source << "\n";
  sim::print_table(comparison, std::cout);
  if (spec.recorded_items) print_savings(savings, o.common.run, recorded, std::cout);
  if (stored != 0) std::cout << "stored as comparison " << stored << " in " << o.common.store << "\n";
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Simulate partitioners x worker counts x queue orders on a cost model");
  add_comparison_options(cmd, options->common);
  cmd->add_option("--workers", options->workers, "Comma-separated worker counts")
      ->capture_default_str()
      ->each([](const std::string& text) { parse_workers(text, "--workers"); });
  add_autoscale_options(cmd, options->autoscale);
  add_sweep_options(cmd, options->sweep);
  set_help_groups(*cmd, {{kJobGroup, {}},
                         {kCandidatesGroup, {"--workers"}},
                         {kModelGroup, {}},
                         {kClusterGroup, {}},
                         {kFailuresGroup, {}},
                         {kOutputGroup, {}},
                         {kFanOutGroup, {}}});
  set_help_examples(
      *cmd,
      {{"Partitioners and worker counts on a fitted model, against the recorded run as it ran",
        "millrace compare --store out/t.db --model out/model.json --run pcv2 --workers 96,192,384 --replicas 20"},
       {"The recorded deployment's own ranges as one more candidate",
        "millrace compare --store out/t.db --model out/model.json --run pcv2 --workers 192 --overlap 320 "
        "--ranges theirs=out/theirs.txt"},
       {"Everything from an experiment file, its store and model paths overridden",
        "millrace compare -f examples/pcv2-experiment.yaml --store out/t.db --model out/model.json"}});
  cmd->callback([options, cmd] { run_compare(*options, *cmd); });
}

}  // namespace millrace::cli
