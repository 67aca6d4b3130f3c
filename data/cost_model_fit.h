// Fitting the cost model from recorded ranges. Each observation is one recorded range with its
// duration (and, where the recording has it, the part spent on per-unit work such as applying
// transactions). The design (data/fit_design.h) has one start-up column per bin (1 when the
// range starts in it) and one work column per bin (units of the range inside it).
//
// By default the bins follow the recording's own boundaries (one per distinct recorded stretch)
// and the coefficients minimise squared error plus a smoothness penalty between neighbouring
// bins, non-negative, solved sparse (data/sparse_nnls.h); the penalty's weight is the one of a
// log-spaced grid with the lowest blocked cross-validation error. With `bins` set, the old fit:
// that many equal bins, no penalty, dense NNLS (data/nnls.h).
//
// Validation is honest about the question asked (predicting ranges the model has not seen):
// cross-validation folds are made of contiguous blocks of ranges along the sequence, never
// shuffled: a block is a stretch of units, and every range whose midpoint lies in it is held
// out with it (also the overlapping ranges of other runs). Blocks one median range long (the
// default) hold out each range's own units and choose the penalty: that is the resolution a new
// cut of the recorded span needs. Blocks of many ranges (1/(20 k) of them by default) then show
// how well the chosen model predicts stretches no range recorded. The out-of-fold residuals give the error figures and the duration noise
// (data/duration_noise.h) stored with the model.
//
// The start-up/work split is reported with its uncertainty: the posterior standard deviation of
// the start-up share of the recorded total (penalty as prior, out-of-fold residual variance).
// Durations alone separate s from w only when range lengths vary enough locally; when every
// range has the same length, no data can, and the report says so. With work_time, the work part
// and the remaining per-range part are also fitted separately, and the model that
// cross-validates better is chosen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/cost_model.h"
#include "data/progress.h"
#include "data/records.h"
#include "data/time.h"

namespace millrace::data {

struct Observation {
  Range range;
  Micros duration = 0;
  std::optional<Micros> work_time;  // per-unit work part (e.g. transaction apply), when recorded
  std::size_t run = 0;              // which of the fitted runs recorded it (data/run_spread.h)
};

// Every succeeded attempt of a range item is one observation of that range's duration, from the
// fitted run numbered `run`.
std::vector<Observation> observations_of(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts,
                                         std::size_t run = 0);

// The most bins a fitted model has: what keeps its file (at most about 190 bytes a bin) well
// within the kMaxModelBytes its readers accept (data/model_file.h), whatever the recording's size.
// A recording with more distinct stretches has neighbouring ones merged, and the fit says so.
inline constexpr std::size_t kMaxModelBins = 32'768;

struct FitOptions {
  int bins = 0;                   // 0: the recording's own resolution, penalised; N: N equal bins (dense NNLS)
  int folds = 5;                  // k of the blocked k-fold cross-validation
  int cv_block = 1;               // block width in median range lengths (block b in fold b mod k), choosing the penalty
  int stretch_block = 0;          // the same for the unseen-stretch figures; 0: ranges / (20 k)
  std::vector<double> penalties;  // candidate smoothness weights; empty: a log-spaced grid
  std::string units = "units";
  std::string source;
  ProgressReport progress;        // steps done: one per smoothness weight cross-validated, per method
};

struct FitQuality {
  double r2 = 0;                  // on the total duration, in-sample
  double rmse_s = 0;              // in-sample root mean square error, seconds
  double cv_rmse_s = 0;           // blocked cross-validation (out-of-fold) root mean square error, seconds
  double cv_r2 = 0;               // 1 - out-of-fold SSE / SST
  double cv_worst_decile_s = 0;   // mean |out-of-fold error| over the 10% worst-predicted ranges, seconds
  double cv_worst_decile_pct = 0; // the same, % of those ranges' mean recorded duration
  double stretch_cv_rmse_s = 0;   // out-of-fold RMSE when whole stretches (stretch_block ranges) are held out
  double stretch_worst_decile_pct = 0;
  std::optional<double> penalty;  // the smoothness weight chosen (penalised fits)
};

struct PenaltyScore {
  double penalty = 0;
  double cv_rmse_s = 0;
};

// How the separate fit (work time recorded) compares with the joint fit out of fold: the mean
// per-range difference of squared errors (separate minus joint, scaled) and its standard error.
// The separate fit is preferred unless the joint one is clearly better: it uses the recorded
// work time and so pins the start-up/work split that ranges of other lengths depend on, where
// the joint fit's split may be arbitrary (see split_identifiable).
struct MethodChoice {
  double mean_difference = 0;
  double standard_error = 0;
  bool joint_clearly_better() const { return mean_difference > 2 * standard_error; }
};

struct FitReport {
  CostModel model;                         // the chosen fit, with its duration noise
  std::string method;                      // "joint" or "separate"
  std::string resolution;                  // how the bins were chosen
  FitQuality joint;                        // s + w fitted together on durations
  std::optional<FitQuality> separate;      // w on work_time, s on the rest, when work_time is recorded
  std::optional<double> work_part_r2;      // R^2 of the work part alone (separate fit)
  std::optional<double> rest_part_r2;      // R^2 of the remaining per-range part alone
  std::optional<MethodChoice> choice;      // joint vs separate, when work_time is recorded
  std::vector<PenaltyScore> penalty_scores;  // the chosen method's grid (penalised fits)
  std::vector<double> residuals_s;         // chosen model, observed - predicted, per observation (input order)
  std::vector<double> cv_residuals_s;      // chosen method, observed - out-of-fold prediction, per observation
  double mean_duration_s = 0;
  int folds = 0;
  int cv_block = 0;                        // ranges per contiguous cross-validation block
  int stretch_block = 0;                   // ranges per held-out stretch of the unseen-stretch figures
  double startup_share = 0;                // start-up part of the recorded total, joint fit
  double startup_share_sd = 0;             // its posterior standard deviation (inf when unconstrained)
  bool split_identifiable = true;          // false when durations alone cannot separate s from w
  std::string identifiability_note;
};

// Throws Error naming `input` when there are too few observations, a range is empty or a
// duration negative, or an option is out of range.
FitReport fit_cost_model(const std::vector<Observation>& observations, const FitOptions& options,
                         const std::string& input);

// A human-readable report: resolution, penalty, figures, identifiability, and the per-bin
// coefficients when there are few bins.
std::string format_fit_report(const FitReport& report);

// The report's figures as JSON (stored beside the model), without per-observation data.
nlohmann::json fit_summary_json(const FitReport& report);

}  // namespace millrace::data
