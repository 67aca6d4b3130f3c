// A partition asked for on the command line, as `partition` writes one and `simulate` simulates
// one: a span (--span, or the units above --start up to --tip cut from the tip down, as a
// deployment's uniform generator cuts them: partitioners/preset.h), a partitioner and its
// parameters, with a preset's settings where the options are not given.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "data/cost_model.h"
#include "partitioners/partitioner.h"

namespace millrace::cli {

struct PartitionSpec {
  std::string span;
  std::string preset;
  std::optional<std::int64_t> tip;
  std::int64_t start = 0;
  std::string partitioner;
  partitioners::PartitionParams params;
};

// --span, --tip, --start, --preset, --partitioner, --range-count, --range-length, --overlap,
// --align and --floor (the partitioner's workers are the command's own --workers).
void add_partition_spec_options(CLI::App* cmd, PartitionSpec& spec);

// Whether the command line gave an option ("--workers").
using OptionGiven = std::function<bool(const char*)>;

// Fills what the preset sets and the command line left unset (partitioner, range length,
// overlap, alignment, floor, workers), then params.span: --span as given, or the tip-down span.
// A tip that does not end a checkpoint is cut unaligned, as the deployment's generator does (said
// on stderr). Throws data::Error for an unknown preset, no partitioner, not exactly one of --span
// and --tip, or a tip not above --start.
void resolve_partition_spec(PartitionSpec& spec, const OptionGiven& given);

// Throws data::Error naming --tip or --span (and the overlap) unless every unit the ranges
// replay, overlap included, lies within the model's span.
void require_within_model(const PartitionSpec& spec, const data::CostModel& model);

// The span in the sequence's own terms: "ledgers -9,536 to 54,326,463 (54,336,000 ledgers)", and
// where it reaches below unit 1 from a tip, why: the lowest range has the full length, as the
// deployment's generator cuts it.
std::string span_description(const PartitionSpec& spec, const std::string& units);

}  // namespace millrace::cli
