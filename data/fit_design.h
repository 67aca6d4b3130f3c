// The cost-model fit's linear design: bin edges along the sequence and, per recorded range, a
// start-up column (1 in the bin holding its first unit) and work columns (its share of each bin
// it covers). Unknowns are scaled to be of order one, so penalties and tolerances mean the same
// on every recording: start-up in units of the mean duration, work density in mean durations per
// `length_scale` units (the median range length). The matrices are sparse: a range touches the
// few bins it covers, so at the recording's own resolution the normal equations are banded.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Sparse>

#include "data/cost_model.h"

namespace millrace::data {

struct Observation;

// Edges at every recorded range's first unit and end: one bin per distinct recorded stretch
// (overlaps and gaps between ranges become bins of their own).
std::vector<std::int64_t> recorded_edges(const std::vector<Observation>& observations);
// `bins` equal bins over the recorded span (fewer when the span has fewer units).
std::vector<std::int64_t> equal_edges(const std::vector<Observation>& observations, int bins);
// Every `step`-th of `edges` and the last, so that at most `max_bins` bins remain (neighbouring
// recorded stretches merged into one bin); edges already few enough come back as they are.
std::vector<std::int64_t> merged_edges(const std::vector<std::int64_t>& edges, std::size_t max_bins);

struct FitDesign {
  std::vector<std::int64_t> edges;
  double duration_scale = 1;  // micros per unit of the scaled targets (the mean duration)
  double length_scale = 1;    // units per work-column unit (the median range length)
  Eigen::SparseMatrix<double, Eigen::RowMajor> startup;  // ranges x bins
  Eigen::SparseMatrix<double, Eigen::RowMajor> work;     // ranges x bins, covered units / length_scale
  // Differences between neighbouring bins, weighted by sqrt(length_scale / distance between
  // their centres): its square sums like the integral of the squared slope of s or w.
  Eigen::SparseMatrix<double> smoothness;                // (bins - 1) x bins

  std::size_t bins() const { return edges.size() - 1; }
  // A cost model from scaled coefficients.
  CostModel model(const Eigen::VectorXd& startup_scaled, const Eigen::VectorXd& work_scaled, const std::string& units,
                  const std::string& source) const;
};

FitDesign make_fit_design(const std::vector<Observation>& observations, std::vector<std::int64_t> edges);

}  // namespace millrace::data
