// Duration options of the commands ("30s", "500ms", "2m", "1.5h", "250us", or a bare number of
// seconds) and the pod start-up latency option (one duration, or comma-separated samples drawn
// uniformly). A duration becomes integer microseconds (data/time.h) only when it is finite,
// not negative, not a positive value that would round to 0 (a 1e-9 s timeout silently meaning
// "none"), and at most a bound (a year by default) far enough from the int64 limit that the
// sums of the simulator and the scheduler cannot overflow.
#pragma once

#include <string>

#include "data/time.h"
#include "sim/sim_cluster.h"

namespace millrace::cli {

// The longest duration an option takes unless it names its own bound: 366 days.
inline constexpr data::Micros kMaxDuration = 366 * 24 * data::kMicrosPerHour;

// "8784h", "600s", "1.5s": how a bound reads in a message.
std::string duration_text(data::Micros us);

// Why `text` is not a duration in [0, max] (empty: it is one); `micros` gets its value.
std::string duration_problem(const std::string& text, data::Micros max, data::Micros& micros);

// Throws data::Error naming `option` and `text` when it is not a duration in [0, max].
data::Micros parse_duration(const std::string& text, const std::string& option, data::Micros max = kMaxDuration);

// "30s" (constant) or "20s,30s,90s" (samples); throws like parse_duration.
sim::StartupLatency parse_startup_latency(const std::string& text, const std::string& option);

}  // namespace millrace::cli
