// Fitting the cost model from recorded ranges. Each observation is one recorded range with its
// duration (and, where the recording has it, the part spent on per-unit work such as applying
// transactions). The design has one start-up column per bin (1 when the range starts in it)
// and one work column per bin (units of the range inside it); coefficients are fitted by
// non-negative least squares. The report gives residuals, R^2, per-bin coefficients, seeded
// k-fold cross-validation, and the design's rank and condition: when every range has the same
// length, a constant shift between start-up and work changes no prediction, so the s/w split
// is not identifiable from durations alone (work_time, or runs with different partitions, fix
// that). With work_time, the work part and the remaining per-range part are also fitted
// separately, and the model that cross-validates better is chosen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/cost_model.h"
#include "data/records.h"
#include "data/time.h"

namespace millrace::data {

struct Observation {
  Range range;
  Micros duration = 0;
  std::optional<Micros> work_time;  // per-unit work part (e.g. transaction apply), when recorded
};

struct FitOptions {
  int bins = 32;             // bins along the observed span, shared by s and w
  int folds = 5;             // k of the k-fold cross-validation
  std::uint64_t seed = 1;    // shuffles the folds
  std::string units = "units";
  std::string source;
};

struct FitQuality {
  double r2 = 0;          // on the total duration, in-sample
  double rmse_s = 0;      // in-sample root mean square error, seconds
  double cv_rmse_s = 0;   // k-fold held-out root mean square error, seconds
  double cv_r2 = 0;       // 1 - held-out SSE / SST
};

struct FitReport {
  CostModel model;                         // the chosen fit
  std::string method;                      // "joint" or "separate"
  FitQuality joint;                        // s + w fitted together on durations
  std::optional<FitQuality> separate;      // w on work_time, s on the rest, when work_time is recorded
  std::optional<double> work_part_r2;      // R^2 of the work part alone (separate fit)
  std::optional<double> rest_part_r2;      // R^2 of the remaining per-range part alone
  std::vector<double> residuals_s;         // chosen model, observed - predicted, per observation
  double mean_duration_s = 0;
  int design_rank = 0;                     // of the joint design
  int design_columns = 0;
  double condition = 0;                    // largest / smallest singular value (inf when singular)
  bool split_identifiable = true;          // false when durations alone cannot separate s from w
  std::string identifiability_note;
};

// Throws Error naming `input` when there are fewer observations than folds or bins, or a
// range is empty or a duration negative.
FitReport fit_cost_model(const std::vector<Observation>& observations, const FitOptions& options,
                         const std::string& input);

// A human-readable report: figures, identifiability, and the per-bin coefficients.
std::string format_fit_report(const FitReport& report);

}  // namespace millrace::data
