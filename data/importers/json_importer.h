// Imports JSON per-range timings: either an array of row objects keyed by the columns of
// timing_records.h, or an object {"run": {...}, "rows": [...]} as `millrace export --format
// json` writes it (the run's units, partitioner, policy and parameters are kept). Values are
// numbers, strings or null. Malformed rows are reported as "file: row N" (1-based), malformed
// JSON as file:line (json_input.h). Rows are handed to the sink as they are parsed and dropped,
// so memory does not grow with the number of rows.
#pragma once

#include <string>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

Run read_timing_json(const std::string& path, TraceSink& sink);
Trace read_timing_json(const std::string& path);

}  // namespace millrace::data::importers
