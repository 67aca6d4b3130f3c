// Duration options of the commands that simulate ("30s", "500ms", "2m", "1.5h", "250us", or a
// bare number of seconds) and the pod start-up latency option (one duration, or
// comma-separated samples drawn uniformly).
#pragma once

#include <string>

#include "data/time.h"
#include "sim/sim_cluster.h"

namespace millrace::cli {

// Throws data::Error naming `option` and `text` when it is not a non-negative duration.
data::Micros parse_duration(const std::string& text, const std::string& option);

// "30s" (constant) or "20s,30s,90s" (samples); throws like parse_duration.
sim::StartupLatency parse_startup_latency(const std::string& text, const std::string& option);

}  // namespace millrace::cli
