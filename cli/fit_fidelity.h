// Fidelity checks of a fitted cost model against the run it was fitted on: the recorded
// partition replayed (list schedule of the recorded plan order on the recorded worker count)
// once with the model's durations and once with the recorded ones, and the model's longest
// range against the recorded longest. A model that averages hot stretches away shows it here
// first: both figures come out too low. `fit` prints them and stores them with the model.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "data/records.h"

namespace millrace::cli {

struct FitFidelity {
  std::string run;
  int workers = 0;
  data::Micros recorded_makespan = 0;  // replay with the recorded durations
  data::Micros model_makespan = 0;     // replay with the model's durations
  data::Range recorded_longest_range;
  data::Micros recorded_longest = 0;
  data::Range model_longest_range;
  data::Micros model_longest = 0;      // the longest predicted duration over the recorded ranges

  double makespan_error() const;  // (model - recorded) / recorded
  double longest_error() const;
};

// Throws data::Error naming the run when it has no succeeded range or no named worker.
FitFidelity check_fidelity(const data::Run& run, const std::vector<data::WorkItem>& items,
                           const std::vector<data::Attempt>& attempts, const data::CostModel& model);

std::string format_fidelity(const FitFidelity& fidelity);
nlohmann::json fidelity_json(const FitFidelity& fidelity);

}  // namespace millrace::cli
