// Imports the raw stellar-supercluster log of a parallel catch-up: the line holding the job
// monitor's /metrics response, {"metrics": ["END/COUNT|worker|tx_apply|total", ...]}, where
// tx_apply carries an "ms" suffix and total an "s" suffix ("53942463/16320|26|4.92053e+06ms|
// 7394s"). Malformed entries are reported as "file:line: entry N" (1-based). See
// stellar_trace.h for how entries become items and attempts.
// A log cut short is refused, naming the file and its last complete line: the mission's
// "Finished mission" line must follow the /metrics response. A partial recording imported as
// if whole would bias every replay and plan made from it, and the /metrics line alone cannot
// tell whether the run was complete.
#pragma once

#include <string>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

Run read_stellar_log(const std::string& path, TraceSink& sink);
Trace read_stellar_log(const std::string& path);

}  // namespace millrace::data::importers
