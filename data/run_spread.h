// How whole runs differ from each other. Some causes move every range of a run at once: load on
// the machine, a slower node pool, another client version. Ranges drawn independently from their
// own noise average that away: 240 ranges with a 10% spread each make a makespan band of about
// 1%, while two runs of the same plan differ by several percent. So the fit keeps one factor per
// fitted run (its ranges together over their out-of-fold prediction, on the stretch of the
// sequence other runs also recorded), and a simulation draws one factor for the whole run: a new
// run's log factor is Student's t with K - 1 degrees of freedom around the K runs' mean log,
// scaled by their sample standard deviation times sqrt(1 + 1/K) (the prediction for a run not
// among them, with the spread itself estimated from K runs: wide when K is small). Draws beyond
// the 0.5% tails are taken at them (t's tails with 2 degrees of freedom reach factors of
// thousands). Fewer than three runs cannot show it: then nothing is drawn, the band covers each
// range's own noise only, and `unidentified` says why.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace millrace::data {

struct RunSpread {
  static constexpr std::size_t kMinRuns = 3;

  std::vector<double> factors;  // one per fitted run: its ranges' observed over predicted time
  std::string unidentified{};   // why there are no factors (the fit's report; not stored)

  bool identified() const { return factors.size() >= kMinRuns; }
  // The scale of a new run's log factor: the runs' sample sd of log factors times sqrt(1 + 1/K)
  // (0 when not identified).
  double log_sd() const;
  // The runs' geometric mean factor, a new run's median (1 when not identified).
  double median() const;
  // A new run's factor for u uniform in (0, 1), u held within [0.005, 0.995]; 1 when not identified.
  double draw(double u) const;

  // The factors' array; from_json throws Error naming `input` for a non-array, or a factor that
  // is not a finite positive number.
  nlohmann::json to_json() const;
  static RunSpread from_json(const nlohmann::json& json, const std::string& input);

  friend bool operator==(const RunSpread& a, const RunSpread& b) { return a.factors == b.factors; }
};

}  // namespace millrace::data
