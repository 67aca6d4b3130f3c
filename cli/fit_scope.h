// What a fitted cost model is good for: the range lengths it can predict. When the fit could
// not tell a range's start-up from its per-unit work (every recorded range of one length, and no
// recorded work time), only ranges like the recorded ones are predicted from the recording;
// ranges much longer or shorter are extrapolated along a split the data did not choose. `fit`
// says so in its first lines and keeps it in the model file (its "fit" section, key
// "range_lengths"); `plan` and `compare` warn when a candidate cuts ranges of other lengths.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/comparison_options.h"
#include "data/cost_model_fit.h"
#include "sim/comparison.h"

namespace millrace::cli {

struct FitScope {
  bool split_identifiable = true;
  std::int64_t shortest = 0;  // recorded range lengths, in units
  std::int64_t longest = 0;
  std::size_t distinct = 0;   // how many different lengths were recorded
};

FitScope fit_scope(const data::FitReport& report, const std::vector<data::Observation>& observations);

// {"split_identifiable", "shortest", "longest", "distinct"}: stored under the model file's "fit"
// as "range_lengths".
nlohmann::json to_json(const FitScope& scope);

// The scope kept in the model file at `path`; nullopt for a file without one (a profile's model,
// or one written before fits kept it). Throws data::Error naming the path for an unreadable file.
std::optional<FitScope> stored_fit_scope(const std::string& path);

// "good for ranges of any length over its span: start-up and per-unit work told apart (3 recorded
// range lengths, 250 to 1,000 units)" or "good for ranges of about the recorded length (250
// units): ...".
std::string scope_text(const FitScope& scope, const std::string& units);

// The warning for ranges of `mean_length` units (`what`: "the answer's ranges") cut from a model
// of this scope, empty when they are within a factor of two of the recorded lengths or the
// split was identified.
std::string extrapolation_warning(const FitScope& scope, double mean_length, const std::string& what,
                                  const std::string& units);

// The warning for a row of a comparison on --model's file (empty for --fit-runs, a model file
// without a scope, or ranges near the recorded lengths): its ranges' mean length, overlap
// included, against the recorded ones.
std::string extrapolated_ranges(const ComparisonOptions& options, const sim::ComparisonSpec& spec,
                                const sim::ComparisonRow& row, const std::string& units, const std::string& what);

}  // namespace millrace::cli
