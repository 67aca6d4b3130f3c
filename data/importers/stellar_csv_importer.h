// Imports the parsed stellar catch-up recording: a CSV with the header
// end_ledger,ledger_count,first_ledger,worker_id,tx_apply_ms,total_s (one range per line,
// first_ledger = end_ledger - ledger_count + 1, checked). See stellar_trace.h for how rows
// become items and attempts; the result equals the raw log's import.
#pragma once

#include <string>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

Run read_stellar_csv(const std::string& path, TraceSink& sink);
Trace read_stellar_csv(const std::string& path);

}  // namespace millrace::data::importers
