// `millrace partition`: cut a span of units into ranges with a named partitioner and write
// them as CSV, JSON, or the END/COUNT lines parallel catch-up deployments consume. With a
// model, units outside the model's span are refused rather than extrapolated.
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/current_step.h"
#include "cli/help_layout.h"
#include "cli/option_checks.h"
#include "cli/partition_size.h"
#include "cli/span_option.h"
#include "data/error.h"
#include "data/model_span.h"
#include "data/quantity.h"
#include "data/whole_file.h"
#include "partitioners/cost_cuts.h"
#include "partitioners/list_schedule.h"
#include "partitioners/preset.h"
#include "partitioners/registry.h"

namespace millrace::cli {

namespace {

struct PartitionOptions {
  std::string span;
  std::string preset;
  std::optional<std::int64_t> tip;
  std::int64_t start = 0;
  std::string partitioner;
  std::string model_path;
  std::string format = "csv";
  std::string output;
  std::string requests;  // --request: every range's, in the JSON plan
  partitioners::PartitionParams params;
};

// Peak memory per range (the partition, its work ranges and the text written), measured with
// /usr/bin/time -f %M between 10^5 and 10^6 ranges: 64 bytes as csv, 1017 as JSON.
constexpr double kBytesPerTextRange = 65;  // csv and end-count
constexpr double kBytesPerJsonRange = 1020;

void write_partition(const partitioners::Partition& partition, const PartitionOptions& options,
                     const data::CostModel* model, std::ostream& out) {
  const std::vector<data::Range> work = partition.work_ranges();
  // The text formats declare their overlap (partitioners/ranges_file.h), so they read back as written.
  if (options.format != "json" && partition.overlap > 0) out << "# overlap " << partition.overlap << "\n";
  if (options.format == "end-count") {
    for (auto it = work.rbegin(); it != work.rend(); ++it) out << it->end_count() << "\n";
  } else if (options.format == "csv") {
    out << "first,last,count" << (model ? ",predicted_s" : "") << "\n";
    for (const data::Range& r : work) {
      out << r.first << "," << r.last() << "," << r.count;
      if (model) out << "," << data::seconds_from_micros(model->predict(r));
      out << "\n";
    }
  } else {
    const data::Quantities requests =
        options.requests.empty() ? data::Quantities{} : data::parse_quantity_list(options.requests, "--request");
    nlohmann::json ranges = nlohmann::json::array();
    for (const data::Range& r : work) {
      nlohmann::json item{{"first", r.first}, {"last", r.last()}, {"count", r.count}};
      if (model) item["predicted_s"] = data::seconds_from_micros(model->predict(r));
      for (const auto& [resource, milli] : requests) item["request." + resource] = data::format_quantity_milli(milli);
      ranges.push_back(item);
    }
    out << nlohmann::json{{"partitioner", options.partitioner},
                          {"span", {{"first", options.params.span.first}, {"last", options.params.span.last()}}},
                          {"overlap", partition.overlap},
                          {"align", options.params.align},
                          {"ranges", ranges}}
               .dump(2)
        << "\n";
  }
}

// Fills what the preset sets and the command line left unset, then the span: --span as given,
// or the units above --start up to --tip, cut from the tip down as the deployment's uniform
// generator does (see partitioners/preset.h).
void resolve_span(PartitionOptions& options, const CLI::App& cmd) {
  if (!options.preset.empty()) {
    const partitioners::Preset& preset = partitioners::find_preset(options.preset);
    auto unset = [&cmd](const char* flag) { return cmd.count(flag) == 0; };
    if (unset("--partitioner")) options.partitioner = preset.partitioner;
    if (unset("--range-length") && unset("--range-count")) options.params.range_length = preset.range_length;
    if (unset("--overlap")) options.params.overlap = preset.overlap;
    if (unset("--align")) options.params.align = preset.align;
    if (unset("--floor")) options.params.floor = preset.floor;
    if (unset("--workers")) options.params.workers = preset.workers;
  }
  if (options.partitioner.empty()) throw data::Error("partition", "needs --partitioner or --preset");
  if (options.span.empty() == !options.tip) throw data::Error("partition", "needs exactly one of --span and --tip");
  if (!options.tip) {
    options.params.span = parse_span(options.span);
    return;
  }
  const std::int64_t tip = *options.tip;
  if (options.partitioner == "uniform" && options.params.range_length > 0) {
    options.params.span = partitioners::tip_down_span(tip, options.start, options.params.range_length);
    if (!partitioners::ends_checkpoint(tip, options.params.align)) {
      std::cerr << "millrace: tip " << tip << " is not the last unit of a checkpoint of " << options.params.align
                << "; ranges are cut from it unaligned, as the deployment's generator does\n";
      options.params.align = 1;
    }
  } else {
    if (tip <= options.start) throw data::Error("--tip " + std::to_string(tip), "must be above --start");
    options.params.span = {options.start + 1, tip - options.start};
  }
}

void run_partition(PartitionOptions& options, const CLI::App& cmd) {
  if (!options.requests.empty()) {
    if (options.format != "json") throw data::Error("--request", "only --format json carries requests (request.NAME)");
    data::parse_quantity_list(options.requests, "--request");
  }
  resolve_span(options, cmd);
  std::optional<data::CostModel> model;
  if (!options.model_path.empty()) {
    model = data::CostModel::load(options.model_path);
    const data::Range& span = options.params.span;
    data::require_within_model_span(*model, {span.first - options.params.overlap, span.count + options.params.overlap},
                                    (options.tip ? "--tip " + std::to_string(*options.tip) : "--span " + options.span) +
                                        (options.params.overlap > 0
                                             ? " with overlap " + std::to_string(options.params.overlap)
                                             : std::string()));
  }
  options.params.model = model ? &*model : nullptr;
  require_memory_for_ranges(options.partitioner, options.params,
                            options.format == "json" ? kBytesPerJsonRange : kBytesPerTextRange);
  CurrentStep step("cutting " + std::to_string(options.params.span.count) + " units into ranges");
  const partitioners::Partition partition = partitioners::make_partition(options.partitioner, options.params);
  std::ostringstream text;
  write_partition(partition, options, options.params.model, text);
  if (options.output.empty()) {
    std::cout << text.str();
  } else {
    data::write_whole_file(options.output, text.str());
  }
  std::cerr << partition.ranges.size() << " ranges";
  if (model) {
    const std::vector<double> costs = partitioners::predicted_costs(*model, partition.ranges, partition.overlap);
    std::cerr << ", predicted longest " << *std::max_element(costs.begin(), costs.end()) / data::kMicrosPerSecond << " s";
    if (options.params.workers > 0) {
      std::cerr << ", LPT makespan on " << options.params.workers << " workers "
                << partitioners::lpt_makespan(costs, options.params.workers) / data::kMicrosPerSecond << " s";
    }
  }
  std::cerr << "\n";
}

}  // namespace

void add_partition_command(CLI::App& app) {
  auto options = std::make_shared<PartitionOptions>();
  CLI::App* cmd = app.add_subcommand("partition", "Cut a span of units into ranges with a named partitioner");
  std::string presets;
  for (const std::string& n : partitioners::preset_names()) presets += (presets.empty() ? "" : ", ") + n;
  cmd->add_option("--span", options->span, "FIRST:LAST, inclusive (use --span=-5:100 for a negative FIRST)");
  cmd->add_option("--tip", options->tip, "instead of --span: cut the units above --start up to TIP from the tip down")
      ->transform(whole_number(-kMaxUnit, kMaxUnit));
  cmd->add_option("--start", options->start, "with --tip: the ranges cover units above this one (default 0)")
      ->transform(whole_number(-kMaxUnit, kMaxUnit));
  cmd->add_option("--preset", options->preset, "a deployment's settings (" + presets + "); explicit options win");
  cmd->add_option("--partitioner", options->partitioner, "one of: " + partitioners::partitioner_list());
  cmd->add_option("--model", options->model_path, "cost model JSON (from `millrace fit`)");
  cmd->add_option("--range-count", options->params.ranges, "number of ranges")->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--range-length", options->params.range_length, "uniform: units per range, cut from the top")
      ->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--workers", options->params.workers, "workers (logarithmic's parallelism; optimal's pool)")
      ->transform(whole_number(1));
  cmd->add_option("--overlap", options->params.overlap, "units each range also replays before its first")
      ->transform(whole_number(0, kMaxUnit));
  cmd->add_option("--align", options->params.align, "cuts fall on multiples of this (checkpoint stride)")
      ->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--floor", options->params.floor, "logarithmic: smallest range length")
      ->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--request", options->requests,
                  "--format json: what each range asks for, e.g. cpu=2,memory=4Gi (request.NAME fields, which "
                  "simulate/compare --ranges read back)");
  cmd->add_option("--format", options->format, "csv, json or end-count")
      ->check(CLI::IsMember({"csv", "json", "end-count"}));
  cmd->add_option("-o,--output", options->output, "write here instead of stdout");
  set_help_groups(*cmd, {{"What to cut", {"--span", "--tip", "--start", "--preset"}},
                         {"How it is cut",
                          {"--partitioner", "--model", "--range-count", "--range-length", "--workers", "--overlap",
                           "--align", "--floor"}},
                         {kOutputGroup, {"--format", "--request", "-o"}}});
  set_help_examples(
      *cmd,
      {{"The ranges a Stellar pubnet parallel catch-up to ledger 54326463 runs",
        "millrace partition --preset stellar-pubnet --tip 54326463 --format end-count -o out/ranges.txt"},
       {"Only the top 8 of them", "millrace partition --preset stellar-pubnet --tip 54326463 --start 54198463"},
       {"Balanced on a fitted cost model: 64 ranges of about equal predicted time",
        "millrace partition --span 0:54326463 --partitioner cost-balanced --model out/model.json --range-count 64"}});
  cmd->callback([options, cmd] { run_partition(*options, *cmd); });
}

}  // namespace millrace::cli
