// Any sequence's per-unit cost profile, given as it is (`import --format profile`), so a series
// no longer has to be disguised as an Etherscan export. Rows, in ascending order:
//   CSV   header first,count,unit_cost_us  or  first,count,cost_s   (other columns refused)
//   JSON  an array of {"first", "count", "unit_cost_us" | "cost_s"} objects, or an object
//         {"units": "...", "rows": [...]}
// unit_cost_us is the cost of each unit of the row in microseconds, cost_s the whole row's cost
// in seconds (spread evenly over its units). Each row becomes one profile bin; rows must be
// contiguous: a gap or an overlap between two rows is refused naming file:line of both.
// Every error names file:line (JSON: the line where the row starts).
#pragma once

#include <string>

#include "data/cost_profile.h"

namespace millrace::data::importers {

// The profile named after nothing yet (the registry names it); units "units" unless the JSON
// object says otherwise.
CostProfile read_cost_profile(const std::string& path);

}  // namespace millrace::data::importers
