#include "cli/fit_scope.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "data/model_file.h"
#include "data/readable_duration.h"

namespace millrace::cli {

namespace {

std::string lengths_text(const FitScope& scope, const std::string& units) {
  if (scope.shortest == scope.longest) return data::grouped(scope.shortest) + " " + units;
  return data::grouped(scope.shortest) + " to " + data::grouped(scope.longest) + " " + units;
}

}  // namespace

FitScope fit_scope(const data::FitReport& report, const std::vector<data::Observation>& observations) {
  std::set<std::int64_t> lengths;
  for (const data::Observation& o : observations) lengths.insert(o.range.count);
  FitScope scope;
  scope.split_identifiable = report.split_identifiable;
  if (!lengths.empty()) {
    scope.shortest = *lengths.begin();
    scope.longest = *lengths.rbegin();
  }
  scope.distinct = lengths.size();
  return scope;
}

nlohmann::json to_json(const FitScope& scope) {
  return {{"split_identifiable", scope.split_identifiable},
          {"shortest", scope.shortest},
          {"longest", scope.longest},
          {"distinct", scope.distinct}};
}

std::optional<FitScope> stored_fit_scope(const std::string& path) {
  const nlohmann::json file = data::read_model_json(path);
  const nlohmann::json* fit = file.contains("fit") ? &file.at("fit") : nullptr;
  if (fit == nullptr || !fit->is_object() || !fit->contains("range_lengths")) return std::nullopt;
  const nlohmann::json& kept = fit->at("range_lengths");
  try {
    return FitScope{kept.at("split_identifiable").get<bool>(), kept.at("shortest").get<std::int64_t>(),
                    kept.at("longest").get<std::int64_t>(), kept.at("distinct").get<std::size_t>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // not the shape fit writes: no scope to warn from
  }
}

std::string scope_text(const FitScope& scope, const std::string& units) {
  const std::string recorded = data::counted(static_cast<std::int64_t>(scope.distinct), "recorded range length") +
                               ", " + lengths_text(scope, units);
  if (scope.split_identifiable) {
    return "good for ranges of any length over its span: start-up and per-unit work told apart (" + recorded + ")";
  }
  return std::string("good for ranges of about the recorded ") + (scope.distinct > 1 ? "lengths (" : "length (") +
         lengths_text(scope, units) +
         ") only: start-up and per-unit work could not be told apart, so much longer or shorter ranges are "
         "extrapolated (" + recorded + ")";
}

std::string extrapolation_warning(const FitScope& scope, double mean_length, const std::string& what,
                                  const std::string& units) {
  if (scope.split_identifiable || scope.distinct == 0) return "";
  if (mean_length >= 0.5 * static_cast<double>(scope.shortest) && mean_length <= 2 * static_cast<double>(scope.longest)) {
    return "";
  }
  return "warning: " + what + " average " + data::grouped(std::llround(mean_length)) + " " + units +
         ", but the model was fitted on ranges of " + lengths_text(scope, units) +
         " and could not tell their start-up from their per-unit work: its durations for these are extrapolated "
         "(fit runs with ranges of several lengths, or with recorded work time, or cut ranges near the recorded "
         "length)\n";
}

std::string extrapolated_ranges(const ComparisonOptions& options, const sim::ComparisonSpec& spec,
                                const sim::ComparisonRow& row, const std::string& units, const std::string& what) {
  if (options.model_path.empty() || row.ranges == 0 || row.partitioner == "recorded") return "";
  const std::optional<FitScope> scope = stored_fit_scope(options.model_path);
  if (!scope) return "";
  const double mean_length =
      static_cast<double>(spec.span.count) / static_cast<double>(row.ranges) + static_cast<double>(spec.partition.overlap);
  return extrapolation_warning(*scope, mean_length, what, units);
}

}  // namespace millrace::cli
