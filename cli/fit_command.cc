// `millrace fit`: fit the cost model from the recorded ranges of one or more runs in the trace
// store, print the fit report, and write the model JSON the partitioners and simulator read.
// The model file also keeps the fit report's figures and the fidelity checks (cli/fit_fidelity.h)
// under "fit". With --profile instead of --runs, the model comes directly from a stored
// per-unit cost profile (e.g. the imported Ethereum block-size series) plus one start-up cost.
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/fit_fidelity.h"
#include "cli/fit_scope.h"
#include "cli/current_step.h"
#include "cli/help_layout.h"
#include "cli/memory_budget.h"
#include "cli/option_checks.h"
#include "cli/progress_display.h"
#include "cli/recorded_observations.h"
#include "data/cost_model_fit.h"
#include "data/error.h"
#include "data/model_span.h"
#include "data/model_file.h"
#include "data/readable_duration.h"
#include "data/trace_store.h"
#include "data/typed_duration.h"
#include "sim/cluster_fidelity.h"
#include "sim/cluster_fit.h"
#include "sim/recorded_capacity.h"
#include "sim/replay.h"

namespace millrace::cli {

namespace {

struct FitCommandOptions {
  std::string store;
  std::string runs;
  std::string profile;
  data::Micros startup = 0;
  std::string output;
  bool quiet = false;
  data::FitOptions fit;
};

// The fit holds dense observations x bins matrices: the start-up and work designs, the two side
// by side, and the solver's copy; 8 bytes a cell each.
constexpr double kBytesPerDesignCell = 4 * 8;

// fit's first lines: what the model covers and is good for, and how far it replays each run.
// "model of ledgers -9,856 to 54,326,463 from 3,396 recorded ranges of runs pcv2: good for ..."
// "replays run pcv2 (its partition on 192 workers): makespan -1.35%, longest range -3.80%".
std::string fit_headline(const data::CostModel& model, const RecordedObservations& recorded, const FitScope& scope,
                         const std::vector<FitFidelity>& fidelities) {
  std::string text = "model of " + data::span_reading(model.span(), model.units()) + " from " +
                     data::counted(static_cast<std::int64_t>(recorded.observations.size()), "recorded range") +
                     " of runs " + recorded.names + ": " + scope_text(scope, model.units()) + "\n";
  for (const FitFidelity& f : fidelities) {
    char figures[96];
    std::snprintf(figures, sizeof figures, "makespan %+.2f%%, longest range %+.2f%%", 100 * f.makespan_error(),
                  100 * f.longest_error());
    text += "replays run " + f.run + " (its partition on " + data::counted(f.workers, "worker") + ", model " +
            "durations against the recorded ones): " + figures + "\n";
  }
  return text;
}

// The work's cost model from the runs' recorded ranges: the fit report and each run's fidelity
// printed, their figures into `summary`.
data::CostModel fit_work(FitCommandOptions& options, const RecordedObservations& recorded,
                         const data::TraceStore& store, nlohmann::json& summary) {
  const std::vector<data::Observation>& observations = recorded.observations;
  options.fit.units = recorded.units;
  options.fit.source = options.store + " runs " + recorded.names;
  if (options.fit.bins > 0) {
    require_memory(static_cast<double>(observations.size()) * options.fit.bins, kBytesPerDesignCell,
                   "--bins " + std::to_string(options.fit.bins),
                   "cells of the least-squares design (" + std::to_string(observations.size()) + " observations x bins)");
  }
  CurrentStep step("fitting " +
                   (options.fit.bins > 0 ? std::to_string(options.fit.bins) + " bins" : std::string("the recorded boundaries")) +
                   " to " + std::to_string(observations.size()) + " observations");
  ProgressDisplay progress(options.quiet);
  options.fit.progress = progress.report("fit", "cross-validation steps");
  const data::FitReport report = data::fit_cost_model(observations, options.fit, options.store + " runs " + options.runs);
  progress.finish();
  const FitScope scope = fit_scope(report, observations);
  std::vector<FitFidelity> fidelities;
  for (const data::Run& run : recorded.runs) {
    fidelities.push_back(check_fidelity(run, store.items(run.id), store.attempts(run.id), report.model));
  }
  std::cout << fit_headline(report.model, recorded, scope, fidelities) << "\n" << data::format_fit_report(report);
  summary = data::fit_summary_json(report);
  summary["range_lengths"] = to_json(scope);
  summary["fidelity"] = nlohmann::json::array();
  for (const FitFidelity& fidelity : fidelities) {
    std::cout << format_fidelity(fidelity);
    summary["fidelity"].push_back(fidelity_json(fidelity));
  }
  return report.model;
}

void run_fit(FitCommandOptions& options) {
  const data::TraceStore store = data::TraceStore::open_for_reading(options.store);
  if (!options.profile.empty()) {
    const data::CostModel model =
        data::CostModel::from_profile(store.profile(options.profile), options.startup);
    model.save(options.output);
    std::cout << "model from profile '" << options.profile << "' (" << model.bins().size() << " bins over "
              << model.span().count << " " << model.units() << ", start-up " << data::typed_duration_text(options.startup)
              << " per range) written to " << options.output << "\n";
    return;
  }
  RecordedObservations recorded = recorded_observations(store, options.runs);
  nlohmann::json summary = nlohmann::json::object();
  std::optional<data::CostModel> model;
  if (recorded.observations.empty()) {
    std::cout << "no recorded ranges in runs " << recorded.names
              << ": the work's cost model is not fitted; the file holds the cluster model alone\n";
  } else {
    model = fit_work(options, recorded, store, summary);
  }
  std::vector<sim::Recording> recordings;
  for (const data::Run& run : recorded.runs) {
    recordings.push_back(sim::on_recorded_capacity(sim::load_run(store, std::to_string(run.id)), {}));
  }
  const sim::ClusterFit cluster = sim::fit_cluster(recordings);
  std::cout << sim::format_cluster_fit(cluster);
  summary["cluster_fidelity"] = nlohmann::json::array();
  if (cluster.model.placement.identified() || cluster.model.startup.identified() || cluster.model.worker_gap.identified()) {
    for (const sim::Recording& recording : recordings) {
      const sim::ClusterFidelity fidelity = sim::check_cluster_fidelity(recording, cluster.model, {});
      std::cout << sim::format_cluster_fidelity(fidelity);
      summary["cluster_fidelity"].push_back(sim::to_json(fidelity));
    }
  }
  data::write_model_file(options.output, model ? &*model : nullptr, &cluster.model, summary);
  std::cout << (model ? "model" : "cluster model") << " written to " << options.output << "\n";
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto options = std::make_shared<FitCommandOptions>();
  CLI::App* cmd = app.add_subcommand("fit", "Fit the cost model from recorded runs and print the fit report");
  cmd->add_option("--store", options->store, "trace store (SQLite file)")->required();
  auto* runs = cmd->add_option("--runs", options->runs, "comma-separated run ids or names");
  auto* profile = cmd->add_option("--profile", options->profile, "a stored cost profile to turn into a model");
  runs->excludes(profile);
  cmd->add_option("--startup", options->startup, "with --profile: start-up cost per range (30s, 1.5m)")
      ->needs(profile)
      ->transform(micros());
  cmd->add_option("--bins", options->fit.bins,
                  "N equal bins along the sequence, unpenalised (default: the recorded ranges' own boundaries, "
                  "with a smoothness penalty chosen by blocked cross-validation)")
      ->transform(whole_number(1));
  cmd->add_option("--folds", options->fit.folds, "k of the blocked k-fold cross-validation")
      ->capture_default_str()
      ->transform(whole_number(2));
  cmd->add_option("--cv-block", options->fit.cv_block,
                  "ranges per contiguous cross-validation block choosing the penalty")
      ->capture_default_str()
      ->transform(whole_number(1));
  cmd->add_option("--stretch-block", options->fit.stretch_block,
                  "ranges per held-out stretch for the unseen-stretch error (default: ranges / (20 k))")
      ->transform(whole_number(1));
  cmd->add_option("--penalties", options->fit.penalties, "smoothness weights to choose from (default: 1e-4 .. 1e3)")
      ->delimiter(',');
  cmd->add_option("-o,--output", options->output, "model JSON to write")->required();
  add_quiet_flag(cmd, options->quiet);
  set_help_groups(*cmd, {{"What to fit", {"--store", "--runs", "--profile", "--startup"}},
                         {"How it is fitted", {"--bins", "--folds", "--cv-block", "--stretch-block", "--penalties"}},
                         {kOutputGroup, {"-o"}}});
  set_help_examples(*cmd, {{"The cost model (and the cluster's behaviour) of a recorded run",
                            "millrace fit --store out/t.db --runs pcv2 -o out/model.json"},
                           {"Refit from two runs of different range lengths",
                            "millrace fit --store out/runs.db --runs first,planned -o out/worker-model.json"},
                           {"A model from an imported cost profile, 30 s of start-up per range",
                            "millrace fit --store out/t.db --profile series --startup 30s -o out/series-model.json"}});
  cmd->callback([options] {
    if (options->runs.empty() && options->profile.empty()) {
      throw data::Error("millrace fit", "give --runs (fit from recordings) or --profile (model from a series)");
    }
    run_fit(*options);
  });
}

}  // namespace millrace::cli
