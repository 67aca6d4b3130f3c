#include "cli/prediction_text.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/kept_prediction.h"
#include "data/prediction_check.h"
#include "data/readable_duration.h"

namespace millrace::cli {

namespace {

using data::readable_duration;

std::string fixed(double value, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string range_text(const data::ItemMiss& miss, const std::vector<data::WorkItem>& items) {
  for (const data::WorkItem& item : items) {
    if (item.id == miss.item_id) return item.range ? item.range->text() : item.id;
  }
  return miss.item_id;
}

// A ratio of actual to predicted: two decimals, or two significant digits when that would read
// 0.00 (work that ran thousands of times faster than its model).
std::string ratio_text(double ratio) { return fixed(ratio, std::abs(ratio) < 0.01 ? "%.2g" : "%.2f"); }

}  // namespace

void print_prediction_check(const data::Run& run, const std::vector<data::WorkItem>& items,
                            const std::vector<data::Attempt>& attempts, data::Micros makespan, std::ostream& out) {
  const nlohmann::json parameters = nlohmann::json::parse(run.parameters, nullptr, false);
  if (!parameters.is_object()) return;
  std::optional<data::DurationNoise> noise;
  std::string noise_problem;
  try {
    noise = data::kept_noise(parameters, "run " + std::to_string(run.id));
  } catch (const data::Error& e) {
    noise_problem = e.what();
  }
  const std::optional<data::PredictedMakespan> predicted = data::kept_makespan_prediction(parameters);
  std::optional<data::MakespanBand> band;
  if (predicted) band = predicted->band;
  const data::PredictionCheck check =
      data::check_predictions(items, attempts, noise ? &*noise : nullptr, band, makespan);
  if (check.items == 0 && !band) return;
  out << "  predicted vs actual:\n";
  if (band) {
    out << "    makespan:     " << readable_duration(makespan) << " actual; " << predicted->source << " predicted p50 "
        << readable_duration(band->p50) << " (p10 " << readable_duration(band->p10) << ", p90 "
        << readable_duration(band->p90) << "): " << fixed(100 * check.makespan_error(), "%+.1f%%") << ", "
        << (check.makespan_inside() ? "inside" : "OUTSIDE") << " the p10-p90 band\n";
  } else {
    out << "    makespan:     no prediction kept (a run started with --model or --plan keeps one)\n";
  }
  if (check.items == 0) return;
  out << "    ranges:       " << check.items << " with a prediction; actual/predicted p10 "
      << ratio_text(check.ratio_p10) << ", p50 " << ratio_text(check.ratio_p50) << ", p90 "
      << ratio_text(check.ratio_p90) << "; all together " << ratio_text(check.total_ratio) << "x\n";
  if (band && !check.makespan_inside() && band->p50 > 0) {
    // The ranges moved together beyond what the band allows. Without the run-to-run spread the
    // band comes from each range's own noise, drawn independently, and has no run-wide factor to
    // give; with it, the run strayed further than the recorded runs did.
    const double band_halfwidth = static_cast<double>(band->p90 - band->p10) / (2.0 * static_cast<double>(band->p50));
    const double together = check.total_ratio - 1;
    if (std::abs(together) > band_halfwidth && (together > 0) == (check.makespan_error() > 0)) {
      out << "    why:          the ranges ran " << ratio_text(check.total_ratio)
          << "x their predictions all together, more than the band's " << fixed(100 * band_halfwidth, "%.1f%%")
          << (check.relative_to_run
                  ? " allows: the band holds how far the recorded runs strayed as a whole, and this run strayed "
                    "further (a busier or quieter machine or cluster than any of them)\n"
                  : " allows: the band is each range's own noise drawn independently, so a run that is slower or "
                    "faster as a whole (a busier or quieter machine or cluster than the recordings') falls outside "
                    "it; a model fitted from three runs or more learns how far whole runs stray\n");
    }
  }
  if (check.inside_band) {
    const double share = static_cast<double>(*check.inside_band) / static_cast<double>(check.items);
    out << "    calibration:  " << *check.inside_band << " of " << check.items << " (" << fixed(100 * share, "%.0f")
        << "%) inside their own p10-p90 band (80% if the model's noise is right"
        << (check.relative_to_run ? "; set against the run's own " + ratio_text(check.total_ratio) + "x" : std::string())
        << ")\n";
  } else {
    out << "    calibration:  unknown: "
        << (noise_problem.empty() ? "the run kept no noise of its model (it was started without --model)" : noise_problem)
        << "\n";
  }
  out << "    worst:        ";
  const char* separator = "";
  for (const data::ItemMiss& miss : check.worst) {
    out << separator << range_text(miss, items) << " " << ratio_text(miss.ratio) << "x ("
        << readable_duration(miss.predicted) << " predicted, " << readable_duration(miss.actual) << ")";
    separator = ", ";
  }
  out << "\n";
}

}  // namespace millrace::cli
