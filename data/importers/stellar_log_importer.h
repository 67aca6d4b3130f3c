// Imports the raw stellar-supercluster log of a parallel catch-up: the line holding the job
// monitor's /metrics response, {"metrics": ["END/COUNT|worker|tx_apply|total", ...]}, where
// tx_apply carries an "ms" suffix and total an "s" suffix ("53942463/16320|26|4.92053e+06ms|
// 7394s"). Malformed entries are reported as "file:line: entry N" (1-based). See
// stellar_trace.h for how entries become items and attempts.
#pragma once

#include <string>

#include "data/importers/trace.h"

namespace millrace::data::importers {

Trace read_stellar_log(const std::string& path);

}  // namespace millrace::data::importers
