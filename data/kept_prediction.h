// What a run keeps of its model's predictions in its parameters (data::Run::parameters): the
// makespan band it was predicted, under "plan" (a stored comparison it carries out,
// cli/stored_plan.h) or "predicted" (its own plan simulated as it started, cli/run_prediction.h),
// and the model's noise under "noise", which gives each range its own band. Read here once for
// `show`, the end of a run, and the live page.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "data/duration_noise.h"
#include "data/prediction_check.h"

namespace millrace::data {

struct PredictedMakespan {
  MakespanBand band;
  std::string source;  // "comparison 3 row 2", "its plan simulated at the start (20 replicas)"
};

// None when the run kept no makespan prediction (or one without a positive p50).
std::optional<PredictedMakespan> kept_makespan_prediction(const nlohmann::json& parameters);

// None when the run kept no noise; throws data::Error naming `input` for one that cannot be read.
std::optional<DurationNoise> kept_noise(const nlohmann::json& parameters, const std::string& input);

// {"source", "makespan_p10_us", "makespan_p50_us", "makespan_p90_us"}, or null for none.
nlohmann::json to_json(const std::optional<PredictedMakespan>& prediction);

}  // namespace millrace::data
