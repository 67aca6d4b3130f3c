#include "cli/partition_spec.h"

#include <iostream>

#include "cli/option_checks.h"
#include "cli/span_option.h"
#include "data/error.h"
#include "data/model_span.h"
#include "data/readable_duration.h"
#include "partitioners/preset.h"
#include "partitioners/registry.h"

namespace millrace::cli {

void add_partition_spec_options(CLI::App* cmd, PartitionSpec& spec) {
  std::string presets;
  for (const std::string& n : partitioners::preset_names()) presets += (presets.empty() ? "" : ", ") + n;
  cmd->add_option("--span", spec.span, "FIRST:LAST, inclusive (use --span=-5:100 for a negative FIRST)");
  cmd->add_option("--tip", spec.tip, "instead of --span: cut the units above --start up to TIP from the tip down")
      ->transform(whole_number(-kMaxUnit, kMaxUnit));
  cmd->add_option("--start", spec.start, "with --tip: the ranges cover units above this one (default 0)")
      ->transform(whole_number(-kMaxUnit, kMaxUnit));
  cmd->add_option("--preset", spec.preset, "a deployment's settings (" + presets + "); explicit options win");
  cmd->add_option("--partitioner", spec.partitioner, "one of: " + partitioners::partitioner_list());
  cmd->add_option("--range-count", spec.params.ranges, "number of ranges")->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--range-length", spec.params.range_length, "uniform: units per range, cut from the top")
      ->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--overlap", spec.params.overlap, "units each range also replays before its first")
      ->transform(whole_number(0, kMaxUnit));
  cmd->add_option("--align", spec.params.align, "cuts fall on multiples of this (checkpoint stride)")
      ->transform(whole_number(1, kMaxUnit));
  cmd->add_option("--floor", spec.params.floor, "logarithmic: smallest range length")
      ->transform(whole_number(1, kMaxUnit));
}

void resolve_partition_spec(PartitionSpec& spec, const OptionGiven& given) {
  if (!spec.preset.empty()) {
    const partitioners::Preset& preset = partitioners::find_preset(spec.preset);
    if (!given("--partitioner")) spec.partitioner = preset.partitioner;
    if (!given("--range-length") && !given("--range-count")) spec.params.range_length = preset.range_length;
    if (!given("--overlap")) spec.params.overlap = preset.overlap;
    if (!given("--align")) spec.params.align = preset.align;
    if (!given("--floor")) spec.params.floor = preset.floor;
    if (!given("--workers")) spec.params.workers = preset.workers;
  }
  if (spec.partitioner.empty()) throw data::Error("partition", "needs --partitioner or --preset");
  if (spec.span.empty() == !spec.tip) throw data::Error("partition", "needs exactly one of --span and --tip");
  if (!spec.tip) {
    spec.params.span = parse_span(spec.span);
    return;
  }
  const std::int64_t tip = *spec.tip;
  if (spec.partitioner == "uniform" && spec.params.range_length > 0) {
    spec.params.span = partitioners::tip_down_span(tip, spec.start, spec.params.range_length);
    if (!partitioners::ends_checkpoint(tip, spec.params.align)) {
      std::cerr << "millrace: tip " << tip << " is not the last unit of a checkpoint of " << spec.params.align
                << "; ranges are cut from it unaligned, as the deployment's generator does\n";
      spec.params.align = 1;
    }
  } else {
    if (tip <= spec.start) throw data::Error("--tip " + std::to_string(tip), "must be above --start");
    spec.params.span = {spec.start + 1, tip - spec.start};
  }
}

void require_within_model(const PartitionSpec& spec, const data::CostModel& model) {
  const data::Range& span = spec.params.span;
  const std::int64_t overlap = spec.params.overlap;
  data::require_within_model_span(
      model, {span.first - overlap, span.count + overlap},
      (spec.tip ? "--tip " + std::to_string(*spec.tip) : "--span " + spec.span) +
          (overlap > 0 ? " with overlap " + std::to_string(overlap) : std::string()));
}

std::string span_description(const PartitionSpec& spec, const std::string& units) {
  const data::Range& span = spec.params.span;
  std::string text = units + " " + data::grouped(span.first) + " to " + data::grouped(span.last()) + " (" +
                     data::grouped(span.count) + " " + units + ")";
  if (spec.tip && span.first <= spec.start) {
    text += "; the lowest range has the full length, so it reaches below the start (" + data::grouped(spec.start) +
            "), as the deployment's generator cuts it";
  }
  return text;
}

}  // namespace millrace::cli
