// Imports a CSV of per-range timings: a header naming the columns of timing_records.h (in any
// order, unknown names rejected), then one record per line. What `millrace export --format
// csv` writes imports back unchanged.
#pragma once

#include <string>

#include "data/importers/trace.h"

namespace millrace::data::importers {

Trace read_timing_csv(const std::string& path);

}  // namespace millrace::data::importers
