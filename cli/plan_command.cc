// `millrace plan`: the fewest workers (and the partition) that meet a deadline with a given
// confidence (the share of replicas on time, each replica drawing the ranges' durations from the
// model's noise, so the confidence covers the uncertainty of the work itself), and the cost
// curve of workers vs makespan vs node-hours, by simulation on a cost model
// (sim/capacity_plan.h). Stored in the trace store like compare results.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/comparison_options.h"
#include "cli/current_step.h"
#include "cli/duration_option.h"
#include "cli/option_checks.h"
#include "cli/progress_display.h"
#include "data/error.h"
#include "sim/capacity_plan.h"
#include "sim/comparison_store.h"

namespace millrace::cli {

namespace {

struct PlanOptions {
  ComparisonOptions common;
  data::Micros deadline = 0;
  double confidence = 0.9;
  int min_workers = 1;
  int max_workers = 0;
};

std::string hours(data::Micros us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f h", static_cast<double>(us) / data::kMicrosPerHour);
  return buf;
}

void print_curve(const sim::CapacityAnswer& answer, std::ostream& out) {
  char line[200];
  std::snprintf(line, sizeof line, "%7s  %-14s %6s %10s %10s %10s %10s %10s %8s\n", "workers", "best partitioner",
                "ranges", "mean (h)", "p50 (h)", "p90 (h)", "max (h)", "node-h", "met");
  out << "cost curve (best partitioner per worker count; makespan over the replicas, each drawing the ranges' "
         "durations from the model's noise unless --noise off):\n"
      << line;
  auto h = [](data::Micros us) { return static_cast<double>(us) / data::kMicrosPerHour; };
  for (const sim::ComparisonRow& r : answer.curve) {
    std::snprintf(line, sizeof line, "%7d  %-14s %6zu %10.3f %10.3f %10.3f %10.3f %10.1f %7.0f%%\n", r.workers,
                  r.partitioner.c_str(), r.ranges, h(r.makespan_mean), h(r.makespan_p50), h(r.makespan_p90),
                  h(r.makespan_max), r.node_hours, 100 * *r.deadline_met);
    out << line;
  }
  out << "best mean makespan " << (answer.monotone ? "never rose" : "ROSE somewhere")
      << " with more workers over the evaluated counts\n";
}

void run_plan(const PlanOptions& o) {
  data::TraceStore store = data::TraceStore::open_existing(o.common.store);
  const data::CostModel model = comparison_model(o.common, store);
  sim::CapacityQuestion question{comparison_spec(o.common, store, model), o.deadline, o.confidence, o.min_workers,
                                 o.max_workers, {}};
  // The wanted makespan is also autoscale's deadline (--policy autoscale), as in simulate and run.
  question.spec.base.scheduler.params.deadline = o.deadline;
  require_memory_for(question.spec, {o.max_workers});
  CurrentStep step("planning workers from " + std::to_string(o.min_workers) + " to " + std::to_string(o.max_workers) +
                   " for " + std::to_string(question.spec.span.count) + " units");
  ProgressDisplay progress(o.common.quiet);
  question.spec.progress = progress.report("plan", "simulations");
  int evaluated = 0;
  question.evaluating = [&](int workers) {
    progress.relabel("plan, worker count " + std::to_string(++evaluated) + " (" + std::to_string(workers) + ")");
  };
  const sim::CapacityAnswer answer = sim::plan_capacity(question);
  progress.finish();
  std::int64_t stored = 0;
  if (!o.common.no_record) {
    nlohmann::json parameters = parameters_of(o.common);
    parameters["deadline_us"] = question.deadline;
    parameters["confidence"] = o.confidence;
    parameters["min_workers"] = o.min_workers;
    parameters["max_workers"] = o.max_workers;
    if (answer.best) parameters["answer_workers"] = answer.best->workers;
    stored = sim::record_comparison(
        store, {"plan", model_label(o.common), question.spec.span, parameters, o.common.experiment}, answer.evaluated);
  }
  if (o.common.json) {
    nlohmann::json out{{"deadline_us", question.deadline}, {"confidence", o.confidence}};
    out["curve"] = sim::to_json(sim::Comparison{answer.curve})["rows"];
    out["monotone"] = answer.monotone;
    if (answer.best) out["answer"] = sim::to_json(sim::Comparison{{*answer.best}})["rows"][0];
    if (stored != 0) out["stored_comparison"] = stored;
    std::cout << out.dump(2) << "\n";
  } else {
    print_curve(answer, std::cout);
    if (stored != 0) std::cout << "stored as comparison " << stored << " in " << o.common.store << "\n";
  }
  const sim::ComparisonRow& at_max = answer.best_at_max;
  if (!answer.best) {
    throw data::Error("--deadline " + duration_text(o.deadline),
                      "not met with confidence " + std::to_string(o.confidence) + " even with " +
                          std::to_string(o.max_workers) + " workers (best there: " + at_max.partitioner + ", mean " +
                          hours(at_max.makespan_mean) + ", " + std::to_string(static_cast<int>(100 * *at_max.deadline_met)) +
                          "% of replicas on time)");
  }
  if (!o.common.json) {
    const sim::ComparisonRow& b = *answer.best;
    std::cout << "fewest workers meeting " << duration_text(o.deadline) << " with confidence " << o.confidence << ": " << b.workers
              << " with " << b.partitioner << " (" << b.ranges << " ranges), mean makespan " << hours(b.makespan_mean)
              << ", p50 " << hours(b.makespan_p50) << ", p90 " << hours(b.makespan_p90) << ", max "
              << hours(b.makespan_max) << ", " << b.node_hours << " node-hours (" << b.replicas << " replicas)\n";
  }
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand("plan", "Fewest workers (and partition) meeting a deadline, and the cost curve");
  add_comparison_options(cmd, options->common);
  cmd->add_option("--deadline", options->deadline, "Wanted makespan (e.g. 24h); autoscale's deadline too")
      ->required()
      ->transform(micros());
  cmd->add_option("--confidence", options->confidence, "Fraction of replicas that must meet the deadline")
      ->capture_default_str()
      ->transform(real_number(0, 1));
  cmd->add_option("--min-workers", options->min_workers, "Smallest worker count searched")
      ->capture_default_str()
      ->transform(whole_number(1));
  cmd->add_option("--max-workers", options->max_workers, "Largest worker count searched")
      ->required()
      ->transform(whole_number(1));
  cmd->callback([options] { run_plan(*options); });
}

}  // namespace millrace::cli
