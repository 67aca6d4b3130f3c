// A cost profile in a few figures, for `millrace show PROFILE`: the units it spans, its total
// work, and its densest stretch (the window of 1% of the span holding the most work), so a
// reader sees at a glance where along the sequence a partition's long ranges would hurt.
#pragma once

#include <cstdint>

#include "data/cost_profile.h"
#include "data/records.h"

namespace millrace::data {

struct ProfileSummary {
  Range span;
  std::size_t bins = 0;
  double total_work = 0;       // micros
  Range densest;               // the window of max(1, span / 100) units with the most work
  double densest_work = 0;     // micros in it
};

// Throws Error naming the profile when it has no bins.
ProfileSummary summarise_profile(const CostProfile& profile);

}  // namespace millrace::data
