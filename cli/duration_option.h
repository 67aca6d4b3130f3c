// The pod start-up latency option: one duration, or comma-separated samples drawn uniformly,
// each as every duration option takes it (data/typed_duration.h, the one parser of durations).
#pragma once

#include <string>

#include "data/typed_duration.h"
#include "sim/sim_cluster.h"

namespace millrace::cli {

// "30s" (constant) or "20s,30s,90s" (samples); throws like data::parse_duration.
sim::StartupLatency parse_startup_latency(const std::string& text, const std::string& option);

}  // namespace millrace::cli
