// Durations of a new partition drawn from the cost model, so every what-if carries the
// uncertainty of the work itself: each range takes its predicted duration times the model's
// noise factor at its first unit for its length (data/duration_noise.h), factor(first, count, u)
// with u uniform in (0, 1), and every range of one draw times the same run factor where the model
// learnt how whole runs differ (data/run_spread.h). Replay of a recorded partition does not come here: it keeps the recorded durations.
//
// u comes from std::mt19937_64 through data::unit_draw (data/uniform_draws.h: no std::
// distribution, whose output differs between standard libraries), never 0 or 1. Equal seeds give
// equal durations on every platform and thread count. Without noise (`--noise off`, or a model that has none)
// each range takes its prediction, the model's expectation of it.
#pragma once

#include <cstdint>
#include <vector>

#include "data/cost_model.h"
#include "data/records.h"
#include "data/time.h"

namespace millrace::sim {

// One splitmix64 step: a well-mixed 64-bit value from any input (seeds derived from seeds).
std::uint64_t splitmix(std::uint64_t x);

// The seed of a simulation's duration draws, apart from the stream its own seed drives
// (failures, start-up samples) though both come from the one seed.
std::uint64_t duration_seed(std::uint64_t simulation_seed);

// The predicted duration of each range (the model's cost, rounded to the microsecond) times a
// noise factor drawn in range order from `seed`; with `noise` false, the predictions.
std::vector<data::Micros> draw_durations(const data::CostModel& model, const std::vector<data::Range>& ranges,
                                         std::uint64_t seed, bool noise);

}  // namespace millrace::sim
