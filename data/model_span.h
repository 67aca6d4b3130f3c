// Refusing to extrapolate: a cost model knows the units it was fitted on (or whose profile it
// holds) and nothing beyond them. Outside its span a prediction would silently reuse the
// nearest bin's coefficients, so every what-if (partition, compare, plan, a ranges file)
// checks its units against the model's span first and stops with an error naming both.
#pragma once

#include <string>

#include "data/cost_model.h"
#include "data/records.h"

namespace millrace::data {

// "FIRST:LAST" (inclusive), the form --span takes.
std::string span_text(const Range& units);

// A span in the sequence's own terms, as a person reads it: "ledgers 0 to 54,326,463"; one that
// starts below 0 says why: "ledgers -9,856 to 54,326,463 (its lowest range reaches below 0: cut
// at full length down from the top, as catch-up generators cut it)".
std::string span_reading(const Range& units, const std::string& unit_name);

// Throws Error naming `input`, the units asked for and the model's span unless every unit of
// `units` lies within the model's span.
void require_within_model_span(const CostModel& model, const Range& units, const std::string& input);

}  // namespace millrace::data
