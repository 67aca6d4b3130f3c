// The cost model: predicted duration of a range = start-up cost s(first) (fetching and
// applying state at the range's start, which may grow along the sequence) + the integral of
// a per-unit work density w(u) over the range. s and w are piecewise constant over bins along
// the sequence; cumulative work at bin edges is kept as prefix sums, so a prediction costs
// O(log bins) (O(1) when the bins share one width, as fitted models and per-unit series do). Outside the bins the nearest bin's coefficients apply. Partitioners use it to
// balance and optimise ranges; the fit (data/cost_model_fit.h) produces it from recordings.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/cost_profile.h"
#include "data/duration_noise.h"
#include "data/records.h"
#include "data/time.h"

namespace millrace::data {

struct CostBin {
  Range range;                 // units the bin covers
  double startup_micros = 0;   // s: start-up cost of a range whose first unit lies in the bin
  double micros_per_unit = 0;  // w: work density inside the bin

  friend bool operator==(const CostBin&, const CostBin&) = default;
};

class CostModel {
 public:
  // Throws Error naming `input` and the field unless the bins are non-empty, sorted, contiguous,
  // non-empty ranges with finite, non-negative coefficients, and the costliest range over the
  // span (largest start-up plus all the work) stays below 10^18 us, so no prediction over the
  // span can overflow 64-bit microseconds.
  CostModel(std::vector<CostBin> bins, std::string units = "units", std::string source = "",
            const std::string& input = "cost model");
  // A model from a per-unit series: the profile's densities with one constant start-up cost.
  static CostModel from_profile(const CostProfile& profile, Micros startup);

  const std::vector<CostBin>& bins() const { return bins_; }
  const std::string& units() const { return units_; }
  const std::string& source() const { return source_; }
  Range span() const;  // the units the bins cover
  // The costliest range over the span, micros: the largest start-up plus all the work.
  double costliest() const;

  double startup(std::int64_t first) const;                  // s(first), micros
  double work(std::int64_t from, std::int64_t to) const;     // integral of w over [from, to), micros
  double cost(const Range& range) const;                     // startup + work, micros
  Micros predict(const Range& range) const { return static_cast<Micros>(cost(range) + 0.5); }
  // The largest end in [from, limit] with work(from, end) <= budget (from when none is larger).
  std::int64_t furthest_end(std::int64_t from, double budget, std::int64_t limit) const;

  // How far real durations stray from cost(): empty (factor 1) unless the fit or a file set it.
  const DurationNoise& noise() const { return noise_; }
  void set_noise(DurationNoise noise) { noise_ = std::move(noise); }

  // The work densities as a cost profile (for the trace store and the simulator).
  CostProfile profile(const std::string& name) const;

  // The noise is saved under "noise" when there is any; a file without it loads with no noise.
  nlohmann::json to_json() const;
  // Throws Error naming `input` for missing keys, wrong types and invalid bins or noise.
  static CostModel from_json(const nlohmann::json& json, const std::string& input);
  void save(const std::string& path) const;        // throws Error naming the path
  // The same, with `fit` (the fit's report figures) stored beside the model under "fit".
  void save(const std::string& path, const nlohmann::json& fit) const;
  static CostModel load(const std::string& path);  // throws Error naming the path

 private:
  double cumulative(std::int64_t x) const;  // work from the first bin edge to x (negative before it)
  std::size_t bin_index(std::int64_t x) const;

  std::vector<CostBin> bins_;
  std::string units_;
  std::string source_;
  std::vector<std::int64_t> edges_;  // bins_.size() + 1 bin edges
  std::vector<double> prefix_;       // cumulative work at each edge
  std::int64_t uniform_width_ = 0;   // bin width when all bins but the last share it (O(1) lookup)
  DurationNoise noise_;
};

}  // namespace millrace::data
