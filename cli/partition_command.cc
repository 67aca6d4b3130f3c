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
#include "cli/partition_spec.h"
#include "cli/span_option.h"
#include "data/error.h"
#include "data/quantity.h"
#include "data/whole_file.h"
#include "data/readable_duration.h"
#include "partitioners/cost_cuts.h"
#include "partitioners/list_schedule.h"
#include "partitioners/preset.h"
#include "partitioners/registry.h"

namespace millrace::cli {

namespace {

struct PartitionOptions : PartitionSpec {
  std::string model_path;
  std::string format = "csv";
  std::string output;
  std::string requests;  // --request: every range's, in the JSON plan
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

void run_partition(PartitionOptions& options, const CLI::App& cmd) {
  if (!options.requests.empty()) {
    if (options.format != "json") throw data::Error("--request", "only --format json carries requests (request.NAME)");
    data::parse_quantity_list(options.requests, "--request");
  }
  resolve_partition_spec(options, [&cmd](const char* option) { return cmd.count(option) > 0; });
  std::optional<data::CostModel> model;
  if (!options.model_path.empty()) {
    model = data::CostModel::load(options.model_path);
    require_within_model(options, *model);
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
  std::cerr << data::counted(static_cast<std::int64_t>(partition.ranges.size()), "range");
  if (model) {
    const std::vector<double> costs = partitioners::predicted_costs(*model, partition.ranges, partition.overlap);
    std::cerr << ", predicted longest "
              << data::readable_duration(static_cast<data::Micros>(*std::max_element(costs.begin(), costs.end())));
    if (options.params.workers > 0) {
      std::cerr << ", LPT makespan on " << data::counted(options.params.workers, "worker") << " "
                << data::readable_duration(
                       static_cast<data::Micros>(partitioners::lpt_makespan(costs, options.params.workers)));
    }
  }
  std::cerr << "\n";
}

}  // namespace

void add_partition_command(CLI::App& app) {
  auto options = std::make_shared<PartitionOptions>();
  CLI::App* cmd = app.add_subcommand("partition", "Cut a span of units into ranges with a named partitioner");
  add_partition_spec_options(cmd, *options);
  cmd->add_option("--model", options->model_path, "cost model JSON (from `millrace fit`)");
  cmd->add_option("--workers", options->params.workers, "workers (logarithmic's parallelism; optimal's pool)")
      ->transform(whole_number(1));
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
