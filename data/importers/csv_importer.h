// Imports a CSV of per-range timings: a header naming the columns of timing_records.h (in any
// order, unknown names rejected), then one record per line; an optional `units` column holds
// the run's units, the same on every row. What `millrace export --format csv` writes imports
// back unchanged, units included. Read one line at a time into a TraceSink.
#pragma once

#include <string>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

Run read_timing_csv(const std::string& path, TraceSink& sink);
Trace read_timing_csv(const std::string& path);

}  // namespace millrace::data::importers
