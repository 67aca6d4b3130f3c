// A per-unit cost profile along a sequence: how much work each unit (ledger, block) costs,
// as piecewise-constant bins. It comes from a per-unit series (e.g. block sizes scaled to
// time) or from a fitted cost model, and lets partitioners predict a range's work.
#pragma once

#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::data {

struct ProfileBin {
  Range range;                  // units the bin covers
  double micros_per_unit = 0;   // work density inside the bin

  friend bool operator==(const ProfileBin&, const ProfileBin&) = default;
};

struct CostProfile {
  std::string name;             // unique within a trace store
  std::string units = "units";
  std::string source;           // where it came from (file, series, fitted model)
  std::vector<ProfileBin> bins; // sorted, contiguous

  friend bool operator==(const CostProfile&, const CostProfile&) = default;
};

}  // namespace millrace::data
