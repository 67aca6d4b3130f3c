#include "data/cost_model_fit.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/fit_design.h"
#include "data/nnls.h"
#include "data/readable_duration.h"
#include "data/sparse_nnls.h"

namespace millrace::data {

namespace {

using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using ColMatrix = Eigen::SparseMatrix<double>;

constexpr double kRidge = 1e-6;              // keeps H definite along directions no data or penalty sees
constexpr double kIdentifiableSd = 0.025;    // start-up share known to +-2.5 points (1 sd) or better
constexpr double kNoiseFloor = 0.01;         // durations are never known better than 1% of the mean
constexpr int kNoiseKnots = 41;
constexpr std::size_t kNoiseMinPerSegment = 200;
constexpr int kNoiseMaxSegments = 16;
constexpr std::size_t kMaxListedBins = 64;

// One least-squares problem of a method: columns, targets (scaled) and where its start-up and
// work coefficients sit. Coefficient kind k of bin b is column stride * b + offset, so a part
// holding both kinds interleaves them and its normal matrix stays banded along the sequence.
struct Part {
  RowMatrix design;  // ranges x columns
  Eigen::VectorXd target;
  ColMatrix penalty;  // columns x columns, D^T D per coefficient kind
  int stride = 1;
  std::optional<int> startup_offset;
  std::optional<int> work_offset;

  Eigen::VectorXd coefficients(const Eigen::VectorXd& x, int offset) const {
    return Eigen::Map<const Eigen::VectorXd, 0, Eigen::InnerStride<>>(x.data() + offset, x.size() / stride,
                                                                       Eigen::InnerStride<>(stride));
  }
};

// A way to fit: its parts, solved independently; a range's predicted duration is the sum of
// the parts' predictions.
struct Method {
  std::string name;
  std::vector<Part> parts;
};

// Columns 2b and 2b + 1 are bin b's start-up and work columns.
RowMatrix interleaved(const RowMatrix& startup, const RowMatrix& work) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(startup.nonZeros() + work.nonZeros()));
  for (Eigen::Index r = 0; r < startup.rows(); ++r) {
    for (RowMatrix::InnerIterator it(startup, r); it; ++it) entries.emplace_back(r, 2 * it.col(), it.value());
    for (RowMatrix::InnerIterator it(work, r); it; ++it) entries.emplace_back(r, 2 * it.col() + 1, it.value());
  }
  RowMatrix out(startup.rows(), 2 * startup.cols());
  out.setFromTriplets(entries.begin(), entries.end());
  return out;
}

// The same roughness on both kinds, in the interleaved column order.
ColMatrix interleaved_penalty(const ColMatrix& roughness) {
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index j = 0; j < roughness.outerSize(); ++j) {
    for (ColMatrix::InnerIterator it(roughness, j); it; ++it) {
      for (int kind = 0; kind < 2; ++kind) entries.emplace_back(2 * it.row() + kind, 2 * it.col() + kind, it.value());
    }
  }
  ColMatrix out(2 * roughness.rows(), 2 * roughness.cols());
  out.setFromTriplets(entries.begin(), entries.end());
  return out;
}

Eigen::VectorXd scaled_targets(const std::vector<Observation>& observations, double scale,
                               double (*value)(const Observation&)) {
  Eigen::VectorXd b(static_cast<Eigen::Index>(observations.size()));
  for (std::size_t i = 0; i < observations.size(); ++i) b(static_cast<Eigen::Index>(i)) = value(observations[i]) / scale;
  return b;
}

double duration_of(const Observation& o) { return static_cast<double>(o.duration); }
double work_time_of(const Observation& o) { return static_cast<double>(*o.work_time); }
double rest_time_of(const Observation& o) { return static_cast<double>(o.duration - *o.work_time); }

Method joint_method(const std::vector<Observation>& observations, const FitDesign& design) {
  const ColMatrix roughness = design.smoothness.transpose() * design.smoothness;
  Part part{interleaved(design.startup, design.work), scaled_targets(observations, design.duration_scale, duration_of),
            interleaved_penalty(roughness), 2, 0, 1};
  Method method{"joint", {}};
  method.parts.push_back(std::move(part));
  return method;
}

Method separate_method(const std::vector<Observation>& observations, const FitDesign& design) {
  const ColMatrix roughness = design.smoothness.transpose() * design.smoothness;
  Method method{"separate", {}};
  method.parts.push_back({design.work, scaled_targets(observations, design.duration_scale, work_time_of), roughness, 1, {}, 0});
  method.parts.push_back({design.startup, scaled_targets(observations, design.duration_scale, rest_time_of), roughness, 1, 0, {}});
  return method;
}

// Unpenalised NNLS on unit-norm columns of the training rows (all-zero columns get zero).
Eigen::VectorXd dense_fit(const Part& part, const std::vector<char>& train) {
  std::vector<Eigen::Index> rows;
  for (std::size_t i = 0; i < train.size(); ++i) {
    if (train[i]) rows.push_back(static_cast<Eigen::Index>(i));
  }
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), part.design.cols());
  Eigen::VectorXd b(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto row = static_cast<Eigen::Index>(r);
    for (RowMatrix::InnerIterator it(part.design, rows[r]); it; ++it) a(row, it.col()) = it.value();
    b(row) = part.target(rows[r]);
  }
  Eigen::VectorXd norms = a.colwise().norm().transpose();
  for (Eigen::Index j = 0; j < norms.size(); ++j) norms(j) = norms(j) > 0 ? norms(j) : 1;
  return solve_nnls(a * norms.cwiseInverse().asDiagonal(), b).cwiseQuotient(norms);
}

// One part's least-squares problem on one set of training rows: A_train^T A_train + ridge I,
// the penalty's values on that matrix's sparsity pattern (so H for any penalty is a sum of
// values) and A_train^T b_train, the same for every penalty and so computed once; and the free
// set of the last solve as the next one's warm start.
struct TrainingSystem {
  ColMatrix base;
  Eigen::VectorXd penalty_values;
  Eigen::VectorXd rhs;
  std::vector<char> warm;
};

TrainingSystem training_system(const Part& part, const std::vector<char>& train) {
  Eigen::VectorXd mask(part.design.rows());
  for (Eigen::Index i = 0; i < mask.size(); ++i) mask(i) = train[static_cast<std::size_t>(i)] ? 1.0 : 0.0;
  const ColMatrix masked = mask.asDiagonal() * part.design;
  ColMatrix ridge(part.design.cols(), part.design.cols());
  ridge.setIdentity();
  const ColMatrix gram = masked.transpose() * masked;
  // Zero-valued copies of each other's entries give both sums the union pattern.
  TrainingSystem system{gram + kRidge * ridge + 0.0 * part.penalty, {}, masked.transpose() * part.target, {}};
  const ColMatrix penalty = 0.0 * gram + part.penalty + 0.0 * ridge;
  system.penalty_values = Eigen::Map<const Eigen::VectorXd>(penalty.valuePtr(), penalty.nonZeros());
  return system;
}

// H = A_train^T A_train + penalty * P + ridge I.
ColMatrix normal_matrix(const TrainingSystem& system, double penalty) {
  ColMatrix h = system.base;
  Eigen::Map<Eigen::VectorXd>(h.valuePtr(), h.nonZeros()) += penalty * system.penalty_values;
  return h;
}

// Fits a part on its training rows, penalised (sparse, warm-started) or not (dense).
class PartSolver {
 public:
  PartSolver(bool penalised) : penalised_(penalised) {}

  Eigen::VectorXd solve(const Part& part, const std::vector<char>& train, double penalty, TrainingSystem& system) const {
    if (!penalised_) return dense_fit(part, train);
    if (system.rhs.size() == 0) system = training_system(part, train);
    SparseNnlsResult result = solve_sparse_nnls(normal_matrix(system, penalty), system.rhs, system.warm);
    system.warm = std::move(result.free);
    return result.x;
  }

 private:
  bool penalised_;
};

// Predicted durations (scaled) of every range from the parts' coefficients.
Eigen::VectorXd predict(const Method& method, const std::vector<Eigen::VectorXd>& coefficients) {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(method.parts.front().design.rows());
  for (std::size_t p = 0; p < method.parts.size(); ++p) out += method.parts[p].design * coefficients[p];
  return out;
}

struct Folds {
  std::vector<int> fold_of;  // per observation
  int count = 0;
  int block = 0;
};

// Contiguous blocks along the sequence, each `block` median range lengths of units wide; a range
// belongs to the block holding its midpoint, block b to fold b mod k. Ranges of several runs
// covering the same units are held out together, and nothing is shuffled.
Folds blocked_folds(const std::vector<Observation>& observations, int folds, int block) {
  std::vector<std::int64_t> lengths;
  std::int64_t start = observations.front().range.first;
  for (const Observation& o : observations) {
    lengths.push_back(o.range.count);
    start = std::min(start, o.range.first);
  }
  std::nth_element(lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2), lengths.end());
  const double width = static_cast<double>(block) * static_cast<double>(lengths[lengths.size() / 2]);
  Folds out{std::vector<int>(observations.size()), folds, block};
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const Range& r = observations[i].range;
    const double midpoint = static_cast<double>(r.first - start) + 0.5 * static_cast<double>(r.count);
    out.fold_of[i] = static_cast<int>(static_cast<std::int64_t>(midpoint / width) % folds);
  }
  return out;
}

std::vector<char> training_rows(const Folds& folds, int held_out) {
  std::vector<char> train(folds.fold_of.size());
  for (std::size_t i = 0; i < train.size(); ++i) train[i] = folds.fold_of[i] != held_out;
  return train;
}

// Out-of-fold predictions (scaled) of every range for one penalty; `systems` holds one training
// system per (fold, part), filled on first use.
Eigen::VectorXd out_of_fold(const Method& method, const PartSolver& solver, const Folds& folds, double penalty,
                            std::vector<TrainingSystem>& systems) {
  const Eigen::Index n = method.parts.front().design.rows();
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n);
  systems.resize(static_cast<std::size_t>(folds.count) * method.parts.size());
  for (int k = 0; k < folds.count; ++k) {
    const std::vector<char> train = training_rows(folds, k);
    std::vector<Eigen::VectorXd> coefficients;
    for (std::size_t p = 0; p < method.parts.size(); ++p) {
      coefficients.push_back(solver.solve(method.parts[p], train, penalty, systems[static_cast<std::size_t>(k) * method.parts.size() + p]));
    }
    const Eigen::VectorXd predicted = predict(method, coefficients);
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!train[static_cast<std::size_t>(i)]) out(i) = predicted(i);
    }
  }
  return out;
}

double rms_difference(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return std::sqrt((a - b).squaredNorm() / static_cast<double>(a.size()));
}

// The 10% of ranges with the largest |out-of-fold error|: their mean error (scaled) and that
// as a percentage of their mean recorded duration.
struct WorstDecile {
  double mean_error = 0;
  double percent = 0;
};

WorstDecile worst_decile(const Eigen::VectorXd& observed, const Eigen::VectorXd& predicted) {
  std::vector<std::size_t> order(static_cast<std::size_t>(observed.size()));
  std::iota(order.begin(), order.end(), 0);
  const Eigen::VectorXd error = (predicted - observed).cwiseAbs();
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return error(static_cast<Eigen::Index>(a)) > error(static_cast<Eigen::Index>(b));
  });
  const std::size_t decile = std::max<std::size_t>(1, order.size() / 10);
  double worst = 0, recorded = 0;
  for (std::size_t i = 0; i < decile; ++i) {
    worst += error(static_cast<Eigen::Index>(order[i]));
    recorded += observed(static_cast<Eigen::Index>(order[i]));
  }
  return {worst / static_cast<double>(decile), recorded > 0 ? 100 * worst / recorded : 0};
}

struct MethodFit {
  CostModel model;
  FitQuality quality;
  Eigen::VectorXd out_of_fold;  // scaled
  std::vector<PenaltyScore> scores;
  std::optional<double> penalty;
};

std::vector<double> default_penalties() {
  std::vector<double> grid;
  for (int e = -4; e <= 3; ++e) grid.push_back(std::pow(10.0, e));
  return grid;
}

// The penalty of the grid (refined by half decades around the best) with the lowest blocked-CV
// error, the out-of-fold predictions there, and the model fitted on every range with it.
// The fit's steps (smoothness weights cross-validated) done out of all, told to options.progress.
struct FitSteps {
  const ProgressReport& report;
  std::int64_t total = 0;
  std::int64_t done = 0;
  void advance() {
    if (report) report(++done, total);
  }
};

MethodFit fit_method(const Method& method, const FitDesign& design, const Folds& folds, const Folds& stretch_folds,
                     const FitOptions& options, bool penalised, FitSteps& steps) {
  const PartSolver solver(penalised);
  const Eigen::VectorXd observed = method.parts.size() == 1 ? method.parts.front().target
                                                            : method.parts[0].target + method.parts[1].target;
  std::vector<TrainingSystem> systems;
  std::vector<PenaltyScore> scores;
  Eigen::VectorXd best_out_of_fold;
  double best_error = std::numeric_limits<double>::infinity();
  double best_penalty = 0;
  const auto score = [&](double penalty) {
    const Eigen::VectorXd predicted = out_of_fold(method, solver, folds, penalty, systems);
    const double error = rms_difference(predicted, observed);
    scores.push_back({penalty, error * design.duration_scale / kMicrosPerSecond});
    if (error < best_error) {
      best_error = error;
      best_penalty = penalty;
      best_out_of_fold = predicted;
    }
    steps.advance();
  };
  if (!penalised) {
    score(0);
  } else {
    const std::vector<double> grid = options.penalties.empty() ? default_penalties() : options.penalties;
    for (double penalty : grid) score(penalty);
    if (options.penalties.empty()) {
      const double centre = best_penalty;
      for (double factor : {1 / std::sqrt(10.0), std::sqrt(10.0)}) score(centre * factor);
    }
    std::sort(scores.begin(), scores.end(), [](const PenaltyScore& a, const PenaltyScore& b) { return a.penalty < b.penalty; });
  }
  std::vector<char> all(observed.size(), 1);
  std::vector<Eigen::VectorXd> coefficients;
  Eigen::VectorXd startup = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(design.bins()));
  Eigen::VectorXd work = startup;
  for (const Part& part : method.parts) {
    TrainingSystem system;
    const Eigen::VectorXd x = solver.solve(part, all, best_penalty, system);
    coefficients.push_back(x);
    if (part.startup_offset) startup = part.coefficients(x, *part.startup_offset);
    if (part.work_offset) work = part.coefficients(x, *part.work_offset);
  }
  MethodFit out{design.model(startup, work, options.units, options.source), {}, best_out_of_fold, scores, {}};
  if (penalised) out.penalty = best_penalty;
  const Eigen::VectorXd fitted = predict(method, coefficients);
  const double mean = observed.mean();
  const double sst = (observed.array() - mean).square().sum();
  const double sse = (fitted - observed).squaredNorm();
  const double cv_sse = (best_out_of_fold - observed).squaredNorm();
  const double seconds = design.duration_scale / kMicrosPerSecond;
  const auto n = static_cast<double>(observed.size());
  out.quality.r2 = sst > 0 ? 1 - sse / sst : 0;
  out.quality.rmse_s = std::sqrt(sse / n) * seconds;
  out.quality.cv_rmse_s = std::sqrt(cv_sse / n) * seconds;
  out.quality.cv_r2 = sst > 0 ? 1 - cv_sse / sst : 0;
  out.quality.penalty = out.penalty;
  const WorstDecile worst = worst_decile(observed, best_out_of_fold);
  out.quality.cv_worst_decile_s = worst.mean_error * seconds;
  out.quality.cv_worst_decile_pct = worst.percent;
  std::vector<TrainingSystem> stretch_systems;
  const Eigen::VectorXd stretch = out_of_fold(method, solver, stretch_folds, best_penalty, stretch_systems);
  out.quality.stretch_cv_rmse_s = rms_difference(stretch, observed) * seconds;
  out.quality.stretch_worst_decile_pct = worst_decile(observed, stretch).percent;
  return out;
}

// The start-up share of the recorded total under the joint fit, and its posterior standard
// deviation: var = sigma^2 g^T H^-1 g with g the start-up columns summed over the ranges, H the
// penalised normal matrix and sigma^2 the out-of-fold mean square error (at least 1% of the
// mean duration, so noise-free data do not hide a split no data can fix).
void assess_split(const Method& joint, const MethodFit& fit, const FitDesign& design, const std::vector<Observation>& observations,
                  FitReport& report) {
  const Part& part = joint.parts.front();
  std::vector<char> all(observations.size(), 1);
  const ColMatrix h = normal_matrix(training_system(part, all), fit.penalty.value_or(0));
  const Eigen::VectorXd startup_columns = design.startup.transpose() * Eigen::VectorXd::Ones(part.design.rows());
  Eigen::VectorXd g = Eigen::VectorXd::Zero(part.design.cols());
  for (Eigen::Index b = 0; b < startup_columns.size(); ++b) g(part.stride * b + *part.startup_offset) = startup_columns(b);
  const BandedLdlt ldlt{BandedMatrix(h)};
  const double spread = g.dot(ldlt.solve(g));
  const double total = part.target.sum();
  const double sigma2 = std::max(kNoiseFloor * kNoiseFloor,
                                 (fit.out_of_fold - part.target).squaredNorm() / static_cast<double>(part.target.size()));
  double startup = 0;
  for (const Observation& o : observations) startup += fit.model.startup(o.range.first);
  report.startup_share = startup / (total * design.duration_scale);
  report.startup_share_sd = ldlt.info() == Eigen::Success && spread >= 0 ? std::sqrt(sigma2 * spread) / total
                                                                         : std::numeric_limits<double>::infinity();
  std::set<std::int64_t> lengths;
  for (const Observation& o : observations) lengths.insert(o.range.count);
  report.split_identifiable = report.startup_share_sd <= kIdentifiableSd;
  std::ostringstream note;
  note << std::fixed << std::setprecision(1);
  if (report.split_identifiable) {
    note << "start-up and per-unit work are separable from the durations: start-up is " << 100 * report.startup_share
         << "% +- " << 100 * report.startup_share_sd << "% (1 sd) of the recorded total (" << lengths.size()
         << " range lengths)";
  } else {
    note << "the split between start-up s and per-unit work w is NOT identifiable from durations: the start-up share ("
         << 100 * report.startup_share << "% of the recorded total) has a posterior sd of ";
    if (std::isfinite(report.startup_share_sd) && report.startup_share_sd < 10) {
      note << 100 * report.startup_share_sd << "%";
    } else {
      note << "more than 1000%";
    }
    if (lengths.size() == 1) {
      note << "; every range has the same length (" << *lengths.begin() << "), so adding c to every s and removing c/"
           << *lengths.begin() << " from every w changes no prediction";
    } else {
      note << "; the range lengths (" << lengths.size() << " distinct) do not vary enough where the density changes";
    }
    note << ". Predictions of ranges like the recorded ones are still valid; ranges of other lengths are not, "
            "unless work_time is recorded or runs with different partitions are fitted together";
  }
  report.identifiability_note = note.str();
}

// The note when the separate fit is chosen: the recorded work time fixes the split the
// durations alone may leave open (what the joint fit's `durations_note` says of them).
std::string separated_note(const CostModel& model, const std::vector<Observation>& observations, const std::string& durations_note) {
  double startup = 0, total = 0;
  for (const Observation& o : observations) {
    startup += model.startup(o.range.first);
    total += static_cast<double>(o.duration);
  }
  std::ostringstream note;
  note << std::fixed << std::setprecision(1) << "the recorded work time separates start-up from per-unit work (separate fit): "
       << "start-up is " << 100 * startup / total << "% of the recorded total. From durations alone: " << durations_note;
  return note.str();
}

DurationNoise noise_from(const std::vector<Observation>& observations, const Eigen::VectorXd& out_of_fold,
                         const Eigen::VectorXd& observed) {
  std::vector<NoiseSample> samples;
  samples.reserve(observations.size());
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const double predicted = out_of_fold(static_cast<Eigen::Index>(i));
    if (predicted > 0) {
      samples.push_back({observations[i].range.first, observed(static_cast<Eigen::Index>(i)) / predicted,
                         observations[i].range.count, predicted, observations[i].run});
    }
  }
  return DurationNoise::from_samples(std::move(samples), kNoiseKnots, kNoiseMinPerSegment, kNoiseMaxSegments);
}

// What the fit learnt of how whole runs differ, or why it could not.
std::string run_spread_text(const RunSpread& runs) {
  if (!runs.identified()) return runs.unidentified;
  std::ostringstream text;
  text << std::setprecision(3) << "each run's ranges together took";
  for (std::size_t k = 0; k < runs.factors.size(); ++k) text << (k == 0 ? " " : ", ") << runs.factors[k] << "x";
  text << " their out-of-fold prediction; a new run's factor is drawn once per simulation (median "
       << runs.median() << "x, log scale " << std::setprecision(2) << 100 * runs.log_sd() << "%, Student's t with "
       << runs.factors.size() - 1 << " degrees of freedom: wide while runs are few)";
  return text.str();
}

// The separate fit's out-of-fold squared errors minus the joint fit's, range by range.
MethodChoice compare_out_of_fold(const Eigen::VectorXd& observed, const Eigen::VectorXd& joint, const Eigen::VectorXd& separate) {
  const Eigen::ArrayXd difference = (separate - observed).array().square() - (joint - observed).array().square();
  const auto n = static_cast<double>(difference.size());
  const double mean = difference.mean();
  const double variance = n > 1 ? (difference - mean).square().sum() / (n - 1) : 0;
  return {mean, std::sqrt(variance / n)};
}

int default_stretch(std::size_t observations, int folds) {
  return static_cast<int>(std::max<std::size_t>(1, observations / (static_cast<std::size_t>(folds) * 20)));
}

void validate(const std::vector<Observation>& observations, const FitOptions& options, const std::string& input) {
  if (options.bins < 0) throw Error(input, "--bins must be positive (or 0 for the recording's own resolution)");
  if (static_cast<std::size_t>(options.bins) > kMaxModelBins) {
    throw Error(input, "--bins " + std::to_string(options.bins) + ": a model has at most " +
                           std::to_string(kMaxModelBins) + " bins (so that its file stays within what readers accept)");
  }
  if (options.folds < 2) throw Error(input, "cross-validation needs at least 2 folds");
  if (options.cv_block < 1) throw Error(input, "the cross-validation block must be at least 1 range");
  if (options.stretch_block < 0) throw Error(input, "the held-out stretch must be at least 1 range (or 0: chosen)");
  for (double penalty : options.penalties) {
    if (!std::isfinite(penalty) || penalty <= 0) throw Error(input, "smoothness penalties must be positive and finite");
  }
  const std::size_t needed = std::max<std::size_t>(2 * static_cast<std::size_t>(options.folds), 2 * static_cast<std::size_t>(options.bins));
  if (observations.size() < needed) {
    throw Error(input, "too few recorded ranges to fit (" + std::to_string(observations.size()) + ", need at least " +
                           std::to_string(needed) + (options.bins > 0 ? " for " + std::to_string(options.bins) + " bins" : "") + ")");
  }
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const Observation& o = observations[i];
    if (o.range.count <= 0 || o.duration < 0 || (o.work_time && (*o.work_time < 0 || *o.work_time > o.duration))) {
      throw Error(input, "observation " + std::to_string(i) + " (" + o.range.end_count() +
                             "): empty range, negative duration, or work time outside [0, duration]");
    }
  }
}

double part_r2(const Eigen::VectorXd& observed, const Eigen::VectorXd& predicted) {
  const double sst = (observed.array() - observed.mean()).square().sum();
  return sst > 0 ? 1 - (observed - predicted).squaredNorm() / sst : 0;
}

}  // namespace

std::vector<Observation> observations_of(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts,
                                         std::size_t run) {
  std::unordered_map<std::string, Range> ranges;
  for (const WorkItem& item : items) {
    if (item.range) ranges.emplace(item.id, *item.range);
  }
  std::vector<Observation> out;
  for (const Attempt& attempt : attempts) {
    const auto it = ranges.find(attempt.item_id);
    if (attempt.outcome == Outcome::kSucceeded && it != ranges.end()) {
      out.push_back({it->second, attempt.duration(), attempt.work_time, run});
    }
  }
  return out;
}

FitReport fit_cost_model(const std::vector<Observation>& observations, const FitOptions& options,
                         const std::string& input) {
  validate(observations, options, input);
  const bool penalised = options.bins == 0;
  const std::vector<std::int64_t> edges = penalised ? recorded_edges(observations) : equal_edges(observations, options.bins);
  const FitDesign design = make_fit_design(observations, merged_edges(edges, kMaxModelBins));
  const Folds folds = blocked_folds(observations, options.folds, options.cv_block);
  const int stretch = options.stretch_block > 0 ? options.stretch_block : default_stretch(observations.size(), options.folds);
  const Folds stretch_folds = blocked_folds(observations, options.folds, stretch);

  const bool has_work_time =
      std::all_of(observations.begin(), observations.end(), [](const Observation& o) { return o.work_time.has_value(); });
  const std::size_t weights = options.penalties.empty() ? default_penalties().size() + 2 : options.penalties.size();
  FitSteps steps{options.progress, static_cast<std::int64_t>(penalised ? weights : 1) * (has_work_time ? 2 : 1)};
  const Method joint = joint_method(observations, design);
  MethodFit chosen = fit_method(joint, design, folds, stretch_folds, options, penalised, steps);
  FitReport report{chosen.model, "joint", "", chosen.quality, {}, {}, {}, {}, chosen.scores, {}, {},
                   0, options.folds, options.cv_block, stretch, 0, 0, true, {}};
  report.resolution = penalised ? "recorded boundaries, " + std::to_string(design.bins()) + " bins"
                                : std::to_string(design.bins()) + " equal bins";
  if (design.bins() < edges.size() - 1) {
    report.resolution += " (the recording's " + std::to_string(edges.size() - 1) + " stretches merged into " +
                         std::to_string(design.bins()) + ": a model has at most " + std::to_string(kMaxModelBins) +
                         " bins)";
  }
  assess_split(joint, chosen, design, observations, report);

  const Eigen::VectorXd observed = joint.parts.front().target;
  if (has_work_time) {
    const Method separate = separate_method(observations, design);
    MethodFit fit = fit_method(separate, design, folds, stretch_folds, options, penalised, steps);
    report.separate = fit.quality;
    Eigen::VectorXd work(observed.size()), work_fit(observed.size()), rest(observed.size()), rest_fit(observed.size());
    for (std::size_t i = 0; i < observations.size(); ++i) {
      const auto k = static_cast<Eigen::Index>(i);
      const Observation& o = observations[i];
      work(k) = work_time_of(o);
      work_fit(k) = fit.model.work(o.range.first, o.range.end());
      rest(k) = rest_time_of(o);
      rest_fit(k) = fit.model.startup(o.range.first);
    }
    report.work_part_r2 = part_r2(work, work_fit);
    report.rest_part_r2 = part_r2(rest, rest_fit);
    report.choice = compare_out_of_fold(observed, chosen.out_of_fold, fit.out_of_fold);
    if (!report.choice->joint_clearly_better()) {
      report.method = "separate";
      report.penalty_scores = fit.scores;
      chosen = std::move(fit);
      report.split_identifiable = true;
      report.identifiability_note = separated_note(chosen.model, observations, report.identifiability_note);
    }
  }
  report.model = chosen.model;
  report.model.set_noise(noise_from(observations, chosen.out_of_fold, observed));
  double total = 0;
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const Observation& o = observations[i];
    const double seconds = seconds_from_micros(o.duration);
    total += seconds;
    report.residuals_s.push_back(seconds - report.model.cost(o.range) / kMicrosPerSecond);
    report.cv_residuals_s.push_back((observed(static_cast<Eigen::Index>(i)) - chosen.out_of_fold(static_cast<Eigen::Index>(i))) *
                                    design.duration_scale / kMicrosPerSecond);
  }
  report.mean_duration_s = total / static_cast<double>(observations.size());
  return report;
}

namespace {

// Seconds in the unit that fits them ("850 ms", "12.3 s"): a fit of millisecond ranges does not
// read "RMSE 0.0 s".
std::string readable_seconds(double seconds) { return readable_duration(micros_from_seconds(seconds)); }

}  // namespace

std::string format_fit_report(const FitReport& report) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(4);
  const auto quality = [&](const char* name, const FitQuality& q) {
    out << name << ": R^2 " << q.r2 << ", RMSE " << readable_seconds(q.rmse_s) << ", blocked-CV RMSE "
        << readable_seconds(q.cv_rmse_s) << " (" << std::setprecision(1) << 100 * q.cv_rmse_s / report.mean_duration_s
        << "% of the mean), CV R^2 " << std::setprecision(4) << q.cv_r2 << "\n"
        << "  worst decile of ranges (out of fold): mean |error| " << readable_seconds(q.cv_worst_decile_s) << " ("
        << std::setprecision(1) << q.cv_worst_decile_pct << "% of their recorded durations)";
    if (q.penalty) out << ", smoothness penalty " << std::scientific << std::setprecision(2) << *q.penalty << std::fixed;
    out << "\n  unseen stretches (blocks of " << report.stretch_block << " median range lengths) held out: RMSE "
        << readable_seconds(q.stretch_cv_rmse_s) << " (" << std::setprecision(1)
        << 100 * q.stretch_cv_rmse_s / report.mean_duration_s << "% of the mean), worst decile "
        << q.stretch_worst_decile_pct << "%\n" << std::setprecision(4);
  };
  out << "observations: " << report.residuals_s.size() << ", mean duration " << readable_seconds(report.mean_duration_s)
      << "\n";
  out << "resolution: " << report.resolution << "\n";
  out << "cross-validation: " << report.folds << " folds of contiguous blocks of " << report.cv_block
      << " median range length(s) of units along the sequence (a range in the block of its midpoint, block b in fold b mod "
      << report.folds << ", never shuffled)\n";
  if (!report.penalty_scores.empty() && report.penalty_scores.front().penalty > 0) {
    out << "penalty grid (weight: blocked-CV RMSE):";
    for (const PenaltyScore& s : report.penalty_scores) {
      out << " " << std::scientific << std::setprecision(1) << s.penalty << std::fixed << ": "
          << readable_seconds(s.cv_rmse_s);
    }
    out << "\n" << std::setprecision(4);
  }
  quality("joint fit (s and w on durations)", report.joint);
  if (report.separate) {
    quality("separate fit (w on work time, s on the rest)", *report.separate);
    out << "  work part R^2 " << *report.work_part_r2 << ", remaining per-range part R^2 " << *report.rest_part_r2 << "\n";
  }
  out << "chosen: " << report.method;
  if (report.choice) {
    out << (report.choice->joint_clearly_better()
                ? " (the joint fit's blocked-CV error is lower by more than two standard errors)"
                : " (its blocked-CV error is within two standard errors of the joint fit's or lower, and the recorded "
                  "work time pins the start-up/work split)");
  }
  out << "\n";
  std::vector<double> abs_residuals;
  for (double r : report.residuals_s) abs_residuals.push_back(std::abs(r));
  std::sort(abs_residuals.begin(), abs_residuals.end());
  const auto quantile = [&](double q) { return abs_residuals[static_cast<std::size_t>(q * static_cast<double>(abs_residuals.size() - 1))]; };
  out << "residuals |observed - predicted| (in sample): median " << readable_seconds(quantile(0.5)) << ", p90 "
      << readable_seconds(quantile(0.9)) << ", max " << readable_seconds(abs_residuals.back()) << "\n";
  const DurationNoise& noise = report.model.noise();
  if (!noise.empty()) {
    out << std::setprecision(2) << "duration noise (observed / out-of-fold prediction): "
        << counted(static_cast<std::int64_t>(noise.segments().size()), "segment") << " along the sequence; at the start p10 " << noise.quantile(noise.segments().front().first, 0.1)
        << ", p50 " << noise.quantile(noise.segments().front().first, 0.5) << ", p90 "
        << noise.quantile(noise.segments().front().first, 0.9) << "\n";
    if (!noise.lengths().empty()) {
      out << "  its spread (p10-p90) for longer ranges, measured over windows of consecutive recorded ranges:";
      for (const SpreadAtLength& l : noise.lengths()) out << " " << l.units << " units " << l.relative_spread;
      out << " (held beyond)\n";
    }
    out << "run to run: " << run_spread_text(noise.runs()) << "\n";
  }
  out << "identifiability: " << report.identifiability_note << "\n";
  const std::vector<CostBin>& bins = report.model.bins();
  if (bins.size() > kMaxListedBins) {
    out << "bins: " << bins.size() << " (listed in the model file)\n";
    return out.str();
  }
  out << "bins (first, count, start-up s, work us/unit):\n";
  for (const CostBin& bin : bins) {
    out << "  " << bin.range.first << " " << bin.range.count << " " << std::setprecision(1)
        << bin.startup_micros / kMicrosPerSecond << " " << std::setprecision(3) << bin.micros_per_unit << "\n";
  }
  return out.str();
}

nlohmann::json fit_summary_json(const FitReport& report) {
  const auto quality = [](const FitQuality& q) {
    nlohmann::json j = {{"r2", q.r2},
                        {"rmse_s", q.rmse_s},
                        {"cv_rmse_s", q.cv_rmse_s},
                        {"cv_r2", q.cv_r2},
                        {"cv_worst_decile_s", q.cv_worst_decile_s},
                        {"cv_worst_decile_pct", q.cv_worst_decile_pct},
                        {"stretch_cv_rmse_s", q.stretch_cv_rmse_s},
                        {"stretch_worst_decile_pct", q.stretch_worst_decile_pct}};
    if (q.penalty) j["penalty"] = *q.penalty;
    return j;
  };
  nlohmann::json scores = nlohmann::json::array();
  for (const PenaltyScore& s : report.penalty_scores) scores.push_back({{"penalty", s.penalty}, {"cv_rmse_s", s.cv_rmse_s}});
  nlohmann::json out = {{"method", report.method},
                        {"resolution", report.resolution},
                        {"bins", report.model.bins().size()},
                        {"observations", report.residuals_s.size()},
                        {"mean_duration_s", report.mean_duration_s},
                        {"folds", report.folds},
                        {"cv_block", report.cv_block},
                        {"stretch_block", report.stretch_block},
                        {"joint", quality(report.joint)},
                        {"penalty_scores", scores},
                        {"startup_share", report.startup_share},
                        {"split_identifiable", report.split_identifiable},
                        {"identifiability", report.identifiability_note}};
  if (std::isfinite(report.startup_share_sd)) out["startup_share_sd"] = report.startup_share_sd;
  if (report.separate) out["separate"] = quality(*report.separate);
  if (report.choice) {
    out["choice"] = {{"mean_squared_error_difference", report.choice->mean_difference},
                     {"standard_error", report.choice->standard_error},
                     {"joint_clearly_better", report.choice->joint_clearly_better()}};
  }
  return out;
}

}  // namespace millrace::data
