#include "data/cost_model_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include <Eigen/Dense>

#include "data/error.h"
#include "data/nnls.h"

namespace millrace::data {

namespace {

using Rows = std::vector<std::size_t>;
using Fitter = std::function<CostModel(const Rows&)>;

std::vector<std::int64_t> bin_edges(const std::vector<Observation>& observations, int bins) {
  std::int64_t lo = observations.front().range.first;
  std::int64_t hi = observations.front().range.end();
  for (const Observation& o : observations) {
    lo = std::min(lo, o.range.first);
    hi = std::max(hi, o.range.end());
  }
  const std::int64_t count = std::min<std::int64_t>(bins, hi - lo);
  const std::int64_t width = (hi - lo + count - 1) / count;
  std::vector<std::int64_t> edges;
  for (std::int64_t x = lo; x < hi; x += width) edges.push_back(x);
  edges.push_back(hi);
  return edges;
}

std::size_t bin_of(const std::vector<std::int64_t>& edges, std::int64_t x) {
  const auto it = std::upper_bound(edges.begin() + 1, edges.end() - 1, x);
  return static_cast<std::size_t>(it - edges.begin() - 1);
}

// Start-up columns: 1 in the bin holding the range's first unit.
Eigen::MatrixXd startup_design(const std::vector<Observation>& observations, const Rows& rows,
                               const std::vector<std::int64_t>& edges) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(edges.size() - 1));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    a(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(bin_of(edges, observations[rows[r]].range.first))) = 1;
  }
  return a;
}

// Work columns: units of the range inside each bin.
Eigen::MatrixXd work_design(const std::vector<Observation>& observations, const Rows& rows,
                            const std::vector<std::int64_t>& edges) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(edges.size() - 1));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Range& range = observations[rows[r]].range;
    for (std::size_t b = bin_of(edges, range.first); b + 1 < edges.size() && edges[b] < range.end(); ++b) {
      const std::int64_t inside = std::min(range.end(), edges[b + 1]) - std::max(range.first, edges[b]);
      a(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(b)) = static_cast<double>(inside);
    }
  }
  return a;
}

// NNLS on unit-norm columns (all-zero columns get a zero coefficient).
Eigen::VectorXd fit_nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  Eigen::VectorXd norms = a.colwise().norm().transpose();
  for (Eigen::Index j = 0; j < norms.size(); ++j) norms(j) = norms(j) > 0 ? norms(j) : 1;
  const Eigen::MatrixXd scaled = a * norms.cwiseInverse().asDiagonal();
  return solve_nnls(scaled, b).cwiseQuotient(norms);
}

Eigen::VectorXd targets(const std::vector<Observation>& observations, const Rows& rows,
                        const std::function<double(const Observation&)>& value) {
  Eigen::VectorXd b(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t r = 0; r < rows.size(); ++r) b(static_cast<Eigen::Index>(r)) = value(observations[rows[r]]);
  return b;
}

CostModel model_from(const std::vector<std::int64_t>& edges, const Eigen::VectorXd& startup,
                     const Eigen::VectorXd& density, const FitOptions& options) {
  std::vector<CostBin> bins;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    bins.push_back({{edges[i], edges[i + 1] - edges[i]}, startup(k), density(k)});
  }
  return CostModel(std::move(bins), options.units, options.source);
}

double r_squared(double sse, double sst) { return sst > 0 ? 1 - sse / sst : 0; }

double sum_of_squares_about_mean(const std::vector<double>& values) {
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  double sst = 0;
  for (double v : values) sst += (v - mean) * (v - mean);
  return sst;
}

// R^2 of one fitted part (e.g. work time) against its recorded values, in-sample.
double part_r2(const std::vector<double>& observed, const std::vector<double>& predicted) {
  double sse = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) sse += (observed[i] - predicted[i]) * (observed[i] - predicted[i]);
  return r_squared(sse, sum_of_squares_about_mean(observed));
}

FitQuality assess(const std::vector<Observation>& observations, const Fitter& fitter,
                  const std::vector<Rows>& folds) {
  Rows all(observations.size());
  std::iota(all.begin(), all.end(), 0);
  const CostModel model = fitter(all);
  std::vector<double> durations;
  double sse = 0;
  for (const Observation& o : observations) {
    const double d = seconds_from_micros(o.duration);
    const double e = d - model.cost(o.range) / kMicrosPerSecond;
    durations.push_back(d);
    sse += e * e;
  }
  double cv_sse = 0;
  for (std::size_t k = 0; k < folds.size(); ++k) {
    Rows train;
    for (std::size_t j = 0; j < folds.size(); ++j) {
      if (j != k) train.insert(train.end(), folds[j].begin(), folds[j].end());
    }
    const CostModel held_out = fitter(train);
    for (std::size_t i : folds[k]) {
      const double e = seconds_from_micros(observations[i].duration) - held_out.cost(observations[i].range) / kMicrosPerSecond;
      cv_sse += e * e;
    }
  }
  const double n = static_cast<double>(observations.size());
  const double sst = sum_of_squares_about_mean(durations);
  return {r_squared(sse, sst), std::sqrt(sse / n), std::sqrt(cv_sse / n), r_squared(cv_sse, sst)};
}

std::vector<Rows> make_folds(std::size_t n, int k, std::uint64_t seed) {
  Rows order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  for (std::size_t i = n; i > 1; --i) {
    std::swap(order[i - 1], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(rng)]);
  }
  std::vector<Rows> folds(static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < n; ++i) folds[i % folds.size()].push_back(order[i]);
  return folds;
}

void check_identifiability(const std::vector<Observation>& observations, const std::vector<std::int64_t>& edges,
                           FitReport& report) {
  Rows all(observations.size());
  std::iota(all.begin(), all.end(), 0);
  Eigen::MatrixXd a(static_cast<Eigen::Index>(all.size()), static_cast<Eigen::Index>(2 * (edges.size() - 1)));
  a << startup_design(observations, all, edges), work_design(observations, all, edges);
  std::vector<Eigen::Index> used;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    if (a.col(j).norm() > 0) used.push_back(j);
  }
  Eigen::MatrixXd scaled(a.rows(), static_cast<Eigen::Index>(used.size()));
  for (std::size_t j = 0; j < used.size(); ++j) scaled.col(static_cast<Eigen::Index>(j)) = a.col(used[j]).normalized();
  const Eigen::VectorXd singular = Eigen::BDCSVD<Eigen::MatrixXd>(scaled).singularValues();
  const double largest = singular.size() ? singular(0) : 0;
  const double smallest = singular.size() ? singular(singular.size() - 1) : 0;
  report.design_columns = static_cast<int>(used.size());
  report.design_rank = static_cast<int>((singular.array() > largest * 1e-9).count());
  report.condition = smallest > largest * 1e-15 ? largest / smallest : std::numeric_limits<double>::infinity();
  std::set<std::int64_t> lengths;
  for (const Observation& o : observations) lengths.insert(o.range.count);
  report.split_identifiable = report.design_rank == report.design_columns && report.condition < 1e8;
  std::ostringstream note;
  if (report.split_identifiable) {
    note << "start-up and per-unit work are separable from the durations (" << lengths.size() << " range lengths)";
  } else {
    note << "the split between start-up s and per-unit work w is NOT identifiable from durations: design rank "
         << report.design_rank << " of " << report.design_columns << " columns";
    if (lengths.size() == 1) {
      note << "; every range has the same length (" << *lengths.begin()
           << "), so adding c to every s and removing c/" << *lengths.begin()
           << " from every w changes no prediction";
    }
    note << ". Predictions of ranges like the recorded ones are still valid; ranges of other lengths are not, "
            "unless work_time is recorded or runs with different partitions are fitted together";
  }
  report.identifiability_note = note.str();
}

}  // namespace

FitReport fit_cost_model(const std::vector<Observation>& observations, const FitOptions& options,
                         const std::string& input) {
  if (options.bins < 1) throw Error(input, "the fit needs at least one bin");
  if (options.folds < 2) throw Error(input, "cross-validation needs at least 2 folds");
  const std::size_t needed = std::max<std::size_t>(static_cast<std::size_t>(options.folds), 2 * static_cast<std::size_t>(options.bins));
  if (observations.size() < needed) {
    throw Error(input, "too few recorded ranges to fit (" + std::to_string(observations.size()) + ", need at least " +
                           std::to_string(needed) + " for " + std::to_string(options.bins) + " bins)");
  }
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const Observation& o = observations[i];
    if (o.range.count <= 0 || o.duration < 0 || (o.work_time && (*o.work_time < 0 || *o.work_time > o.duration))) {
      throw Error(input, "observation " + std::to_string(i) + " (" + o.range.end_count() +
                             "): empty range, negative duration, or work time outside [0, duration]");
    }
  }
  const std::vector<std::int64_t> edges = bin_edges(observations, options.bins);
  const std::vector<Rows> folds = make_folds(observations.size(), options.folds, options.seed);
  const auto duration = [](const Observation& o) { return static_cast<double>(o.duration); };
  const auto work_time = [](const Observation& o) { return static_cast<double>(*o.work_time); };
  const auto rest_time = [](const Observation& o) { return static_cast<double>(o.duration - *o.work_time); };

  const Fitter joint = [&](const Rows& rows) {
    const Eigen::MatrixXd s = startup_design(observations, rows, edges);
    Eigen::MatrixXd a(s.rows(), 2 * s.cols());
    a << s, work_design(observations, rows, edges);
    const Eigen::VectorXd x = fit_nnls(a, targets(observations, rows, duration));
    return model_from(edges, x.head(s.cols()), x.tail(s.cols()), options);
  };
  const Fitter separate = [&](const Rows& rows) {
    const Eigen::VectorXd w = fit_nnls(work_design(observations, rows, edges), targets(observations, rows, work_time));
    const Eigen::VectorXd s = fit_nnls(startup_design(observations, rows, edges), targets(observations, rows, rest_time));
    return model_from(edges, s, w, options);
  };

  Rows all(observations.size());
  std::iota(all.begin(), all.end(), 0);
  FitReport report{joint(all), "joint", assess(observations, joint, folds), {}, {}, {}, {}, 0, 0, 0, 0, true, {}};
  const bool has_work_time =
      std::all_of(observations.begin(), observations.end(), [](const Observation& o) { return o.work_time.has_value(); });
  if (has_work_time) {
    report.separate = assess(observations, separate, folds);
    const CostModel model = separate(all);
    std::vector<double> work, work_fit, rest, rest_fit;
    for (const Observation& o : observations) {
      work.push_back(work_time(o));
      work_fit.push_back(model.work(o.range.first, o.range.end()));
      rest.push_back(rest_time(o));
      rest_fit.push_back(model.startup(o.range.first));
    }
    report.work_part_r2 = part_r2(work, work_fit);
    report.rest_part_r2 = part_r2(rest, rest_fit);
    // Ties (within a microsecond) go to the separate fit: it pins the s/w split down.
    if (report.separate->cv_rmse_s <= report.joint.cv_rmse_s + 1e-6) {
      report.model = model;
      report.method = "separate";
    }
  }
  double total = 0;
  for (const Observation& o : observations) {
    total += seconds_from_micros(o.duration);
    report.residuals_s.push_back(seconds_from_micros(o.duration) - report.model.cost(o.range) / kMicrosPerSecond);
  }
  report.mean_duration_s = total / static_cast<double>(observations.size());
  check_identifiability(observations, edges, report);
  return report;
}

std::string format_fit_report(const FitReport& report) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(4);
  const auto quality = [&](const char* name, const FitQuality& q) {
    out << name << ": R^2 " << q.r2 << ", RMSE " << std::setprecision(1) << q.rmse_s << " s, cross-validated RMSE "
        << q.cv_rmse_s << " s (" << 100 * q.cv_rmse_s / report.mean_duration_s << "% of the mean), CV R^2 "
        << std::setprecision(4) << q.cv_r2 << "\n";
  };
  out << "observations: " << report.residuals_s.size() << ", mean duration " << std::setprecision(1)
      << report.mean_duration_s << " s\n" << std::setprecision(4);
  quality("joint fit (s and w on durations)", report.joint);
  if (report.separate) {
    quality("separate fit (w on work time, s on the rest)", *report.separate);
    out << "  work part R^2 " << *report.work_part_r2 << ", remaining per-range part R^2 " << *report.rest_part_r2 << "\n";
  }
  out << "chosen: " << report.method << (report.separate ? " (lower cross-validated error)" : "") << "\n";
  std::vector<double> abs_residuals;
  for (double r : report.residuals_s) abs_residuals.push_back(std::abs(r));
  std::sort(abs_residuals.begin(), abs_residuals.end());
  const auto quantile = [&](double q) { return abs_residuals[static_cast<std::size_t>(q * static_cast<double>(abs_residuals.size() - 1))]; };
  out << std::setprecision(1) << "residuals |observed - predicted|: median " << quantile(0.5) << " s, p90 "
      << quantile(0.9) << " s, max " << abs_residuals.back() << " s\n";
  out << "design: rank " << report.design_rank << " of " << report.design_columns << " columns, condition "
      << std::scientific << std::setprecision(2) << report.condition << std::fixed << "\n";
  out << "identifiability: " << report.identifiability_note << "\n";
  out << "bins (first, count, start-up s, work us/unit):\n";
  for (const CostBin& bin : report.model.bins()) {
    out << "  " << bin.range.first << " " << bin.range.count << " " << std::setprecision(1)
        << bin.startup_micros / kMicrosPerSecond << " " << std::setprecision(3) << bin.micros_per_unit << "\n";
  }
  return out.str();
}

}  // namespace millrace::data
