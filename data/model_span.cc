#include "data/model_span.h"

#include "data/error.h"
#include "data/readable_duration.h"

namespace millrace::data {

std::string span_text(const Range& units) { return std::to_string(units.first) + ":" + std::to_string(units.last()); }

std::string span_reading(const Range& units, const std::string& unit_name) {
  std::string text = unit_name + " " + grouped(units.first) + " to " + grouped(units.last());
  if (units.first < 0) {
    text += " (its lowest range reaches below 0: cut at full length down from the top, as catch-up generators cut it)";
  }
  return text;
}

void require_within_model_span(const CostModel& model, const Range& units, const std::string& input) {
  const Range known = model.span();
  if (units.first >= known.first && units.end() <= known.end()) return;
  throw Error(input, "units " + span_text(units) + " reach outside the model's span " + span_text(known) + " (" +
                         std::to_string(known.count) + " " + model.units() +
                         "); the model does not extrapolate beyond the units it was fitted on");
}

}  // namespace millrace::data
