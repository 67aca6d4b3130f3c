// How whole runs differ from each other. Some causes move every range of a run at once: load on
// the machine, a slower node pool, another client version. Ranges drawn independently from their
// own noise average that away: 240 ranges with a 10% spread each make a makespan band of about
// 1%, while two runs of the same plan differ by several percent. So the fit keeps one factor per
// fitted run (its ranges together over their out-of-fold prediction), and a simulation draws one
// factor for the whole run: log-normal, centred on the runs' geometric mean, its spread the
// sample standard deviation of their logarithms widened by sqrt(1 + 1/K) for a run not among the
// K fitted (a prediction, not a mean). One run cannot show it: then nothing is drawn, and the
// band covers each range's own noise only.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace millrace::data {

struct RunSpread {
  std::vector<double> factors;  // one per fitted run: its ranges' observed over predicted time

  bool identified() const { return factors.size() >= 2; }
  // The standard deviation of a new run's log factor (0 when not identified).
  double log_sd() const;
  // A new run's factor for u uniform in (0, 1); 1 when not identified.
  double draw(double u) const;

  // The factors' array; from_json throws Error naming `input` for a non-array, or a factor that
  // is not a finite positive number.
  nlohmann::json to_json() const;
  static RunSpread from_json(const nlohmann::json& json, const std::string& input);

  friend bool operator==(const RunSpread&, const RunSpread&) = default;
};

}  // namespace millrace::data
