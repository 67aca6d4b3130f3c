// Predicted vs actual for a run that kept predictions (data/prediction_check.h), as `show` and
// the end of `run` print it: the makespan against the band predicted for it (by the comparison it
// carried out, `run --plan`, or its own plan simulated as it started), each range against its own
// prediction, the share inside its own p10-p90 band (calibration: about 80% when the model's noise
// is right), and the worst misses; when a makespan outside its band comes from every range
// running slower or faster together, it says so.
// What a run did not keep (no plan, no model noise) is said, not guessed. Prints nothing for a
// run without predictions.
#pragma once

#include <ostream>
#include <vector>

#include "data/records.h"

namespace millrace::cli {

void print_prediction_check(const data::Run& run, const std::vector<data::WorkItem>& items,
                            const std::vector<data::Attempt>& attempts, data::Micros makespan, std::ostream& out);

}  // namespace millrace::cli
