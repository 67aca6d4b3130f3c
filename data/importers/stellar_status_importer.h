// Imports a saved /status response of a stellar parallel catch-up's job monitor:
//   {"num_remain": N, "num_succeeded": N, "jobs_failed": ["END/COUNT|pod", ...],
//    "jobs_in_progress": ["END/COUNT", ...], "workers": [{"worker_id", "status", "info"}, ...]}
// as a snapshot run: one item per failed or in-progress range (tip first), a failed attempt per
// jobs_failed entry (worker = the pod) and a running attempt per in-progress range. The counts
// and the workers list, which name no ranges, go into the run's parameters.
#pragma once

#include <string>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

Run read_stellar_status(const std::string& path, TraceSink& sink);
Trace read_stellar_status(const std::string& path);

}  // namespace millrace::data::importers
