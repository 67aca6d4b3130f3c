#include "data/fit_design.h"

#include <algorithm>
#include <cmath>

#include "data/cost_model_fit.h"

namespace millrace::data {

namespace {

std::size_t bin_of(const std::vector<std::int64_t>& edges, std::int64_t x) {
  const auto it = std::upper_bound(edges.begin() + 1, edges.end() - 1, x);
  return static_cast<std::size_t>(it - edges.begin() - 1);
}

using Triplets = std::vector<Eigen::Triplet<double>>;

}  // namespace

std::vector<std::int64_t> recorded_edges(const std::vector<Observation>& observations) {
  std::vector<std::int64_t> edges;
  edges.reserve(2 * observations.size());
  for (const Observation& o : observations) {
    edges.push_back(o.range.first);
    edges.push_back(o.range.end());
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

std::vector<std::int64_t> equal_edges(const std::vector<Observation>& observations, int bins) {
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

std::vector<std::int64_t> merged_edges(const std::vector<std::int64_t>& edges, std::size_t max_bins) {
  const std::size_t bins = edges.size() - 1;
  if (bins <= max_bins) return edges;
  const std::size_t step = (bins + max_bins - 1) / max_bins;
  std::vector<std::int64_t> merged;
  for (std::size_t i = 0; i < bins; i += step) merged.push_back(edges[i]);
  merged.push_back(edges.back());
  return merged;
}

FitDesign make_fit_design(const std::vector<Observation>& observations, std::vector<std::int64_t> edges) {
  FitDesign design;
  design.edges = std::move(edges);
  const auto rows = static_cast<Eigen::Index>(observations.size());
  const auto bins = static_cast<Eigen::Index>(design.bins());
  double total = 0;
  std::vector<std::int64_t> lengths;
  for (const Observation& o : observations) {
    total += static_cast<double>(o.duration);
    lengths.push_back(o.range.count);
  }
  design.duration_scale = std::max(1.0, total / static_cast<double>(observations.size()));
  std::nth_element(lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2), lengths.end());
  design.length_scale = static_cast<double>(lengths[lengths.size() / 2]);

  Triplets startup, work;
  startup.reserve(observations.size());
  for (std::size_t r = 0; r < observations.size(); ++r) {
    const Range& range = observations[r].range;
    const auto row = static_cast<Eigen::Index>(r);
    std::size_t b = bin_of(design.edges, range.first);
    startup.emplace_back(row, static_cast<Eigen::Index>(b), 1.0);
    for (; b < design.bins() && design.edges[b] < range.end(); ++b) {
      const std::int64_t inside = std::min(range.end(), design.edges[b + 1]) - std::max(range.first, design.edges[b]);
      if (inside > 0) work.emplace_back(row, static_cast<Eigen::Index>(b), static_cast<double>(inside) / design.length_scale);
    }
  }
  design.startup.resize(rows, bins);
  design.startup.setFromTriplets(startup.begin(), startup.end());
  design.work.resize(rows, bins);
  design.work.setFromTriplets(work.begin(), work.end());

  Triplets differences;
  for (Eigen::Index b = 0; b + 1 < bins; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const double distance = 0.5 * static_cast<double>(design.edges[i + 2] - design.edges[i]);
    const double weight = std::sqrt(design.length_scale / distance);
    differences.emplace_back(b, b, -weight);
    differences.emplace_back(b, b + 1, weight);
  }
  design.smoothness.resize(std::max<Eigen::Index>(bins - 1, 0), bins);
  design.smoothness.setFromTriplets(differences.begin(), differences.end());
  return design;
}

CostModel FitDesign::model(const Eigen::VectorXd& startup_scaled, const Eigen::VectorXd& work_scaled,
                           const std::string& units, const std::string& source) const {
  std::vector<CostBin> out;
  out.reserve(bins());
  for (std::size_t i = 0; i < bins(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    out.push_back({{edges[i], edges[i + 1] - edges[i]}, startup_scaled(k) * duration_scale,
                   work_scaled(k) * duration_scale / length_scale});
  }
  return CostModel(std::move(out), units, source);
}

}  // namespace millrace::data
