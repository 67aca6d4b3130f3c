#include "cli/stored_plan.h"

#include <charconv>

#include "cli/comparison_options.h"
#include "data/error.h"
#include "sim/comparison_store.h"

namespace millrace::cli {

namespace {

constexpr const char* kFittedLabel = "fitted from runs ";

std::int64_t positive_number(const std::string& text, const std::string& reference) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    throw data::Error("--plan " + reference, "expected COMPARISON or COMPARISON:ROW, positive whole numbers (see "
                                             "`millrace runs` for the stored comparisons)");
  }
  return value;
}

// The row a plan chose: stored with it as "answer_row" (from 0).
std::int64_t answer_row(const sim::ComparisonHeader& header, const std::string& reference) {
  if (header.kind != "plan") {
    throw data::Error("--plan " + reference, "is a compare: it ranks rows but chooses none; name one, e.g. " +
                                                 reference + ":1 for its first row");
  }
  const nlohmann::json& p = header.parameters;
  if (!p.contains("answer_row") || !p.at("answer_row").is_number_integer()) {
    throw data::Error("--plan " + reference,
                      "this plan found no answer (or was stored before plans kept their answer's row); name a row, "
                      "e.g. " + reference + ":1");
  }
  return p.at("answer_row").get<std::int64_t>();
}

// The ranges file of the listed candidate `name` of a comparison.
std::string listed_file(const nlohmann::json& parameters, const std::string& name) {
  for (const nlohmann::json& text : parameters.value("ranges_files", nlohmann::json::array())) {
    if (!text.is_string()) continue;
    auto [candidate, file] = candidate_name_and_file(text.get<std::string>());
    if (candidate == name) return file;
  }
  return "";
}

}  // namespace

std::string ChosenPlan::text() const {
  std::string text = "comparison " + std::to_string(comparison) + " row " + std::to_string(row);
  if (kind == "plan") text += " (the plan's answer)";
  text += ": " + (ranges_file.empty() ? partitioner : "ranges file " + ranges_file) + ", " +
          std::to_string(predicted.ranges) + " ranges on " + std::to_string(workers) + " workers, " + order +
          " order, " + policy;
  return text;
}

nlohmann::json ChosenPlan::to_json() const {
  return {{"comparison", comparison},
          {"row", row},
          {"replicas", predicted.replicas},
          {"makespan_mean_us", predicted.makespan_mean},
          {"makespan_p10_us", predicted.makespan_p10},
          {"makespan_p50_us", predicted.makespan_p50},
          {"makespan_p90_us", predicted.makespan_p90}};
}

nlohmann::json partition_settings(const partitioners::PartitionParams& params) {
  return {{"ranges", params.ranges},
          {"range_length", params.range_length},
          {"overlap", params.overlap},
          {"align", params.align},
          {"floor", params.floor}};
}

ChosenPlan chosen_plan(const data::TraceStore& store, const std::string& reference) {
  ChosenPlan chosen;
  const std::size_t colon = reference.find(':');
  chosen.comparison = positive_number(reference.substr(0, colon), reference);
  const sim::ComparisonHeader header = sim::stored_header(store, chosen.comparison);
  chosen.kind = header.kind;
  const std::int64_t position = colon == std::string::npos
                                    ? answer_row(header, reference)
                                    : positive_number(reference.substr(colon + 1), reference) - 1;
  chosen.predicted = sim::stored_row(store, chosen.comparison, position);
  chosen.row = position + 1;
  const sim::ComparisonRow& row = chosen.predicted;
  const std::string input = "--plan " + reference;
  if (row.partitioner == "recorded") {
    throw data::Error(input, "replays the recorded run's own ranges: it chose no partition to run (name another row)");
  }
  if (header.model.empty()) {
    throw data::Error(input, "a node search of a recorded run: it chose a node count, not a partition to run");
  }
  if (header.model.rfind(kFittedLabel, 0) == 0) {
    throw data::Error(input, "its cost model was " + header.model +
                                 " on the fly (--fit-runs), with no file to run with: fit it to a file (`millrace fit "
                                 "--output FILE`) and compare or plan with --model FILE");
  }
  const nlohmann::json& p = header.parameters;
  if (!p.contains("partition") || !p.at("partition").is_object()) {
    throw data::Error(input, "was stored before comparisons kept their partition settings: run the compare or plan "
                             "again to run what it chooses");
  }
  try {
    const nlohmann::json& settings = p.at("partition");
    chosen.partition.ranges = settings.at("ranges").get<std::int64_t>();
    chosen.partition.range_length = settings.at("range_length").get<std::int64_t>();
    chosen.partition.overlap = settings.at("overlap").get<std::int64_t>();
    chosen.partition.align = settings.at("align").get<std::int64_t>();
    chosen.partition.floor = settings.at("floor").get<std::int64_t>();
    chosen.policy = p.at("policy").get<std::string>();
    if (chosen.policy == "autoscale") chosen.autoscale = scheduler::autoscale_settings_from(p);
  } catch (const nlohmann::json::exception& e) {
    throw data::Error(input, std::string("its stored settings cannot be read: ") + e.what());
  }
  chosen.model_path = header.model;
  if (p.contains("model_sha256") && p.at("model_sha256").is_string()) {
    const std::string kept = p.at("model_sha256").get<std::string>();
    DigestedModel now = read_digested_model(header.model);
    if (now.sha256 != kept) {
      throw data::Error(input, "was made with the cost model " + header.model + " of SHA-256 " + kept.substr(0, 12) +
                                   "..., and that file now holds another (SHA-256 " + now.sha256.substr(0, 12) +
                                   "...): plan again with this model, or put back the one the plan was made with");
    }
    chosen.model = std::move(now.model);
  } else {
    chosen.model_unchecked = "was stored before comparisons kept their model's SHA-256: " + header.model +
                             " is used as it is now, which may not be the model the comparison was made with";
  }
  chosen.partition.span = header.span;
  chosen.partition.workers = row.workers;
  chosen.workers = row.workers;
  chosen.order = row.order;
  chosen.ranges_file = listed_file(p, row.partitioner);
  if (chosen.ranges_file.empty()) chosen.partitioner = row.partitioner;
  return chosen;
}

}  // namespace millrace::cli
