// How well a fitted cluster (sim/cluster_fit.h) reproduces what was recorded. The recording is
// replayed on its capacity (sim/recorded_capacity.h) with its recorded work durations and the
// fitted cluster's draws (placement residual, start-up, failures, worker gap), and its makespan
// and waits (submission to start: p50, p90, p99) are set beside the recorded ones. Held out in
// time: the cluster is fitted on the first 70% of the items by submission alone, the whole
// recording replayed with it, and the waits of the last 30% (and the makespan) set beside the
// recorded ones: a forecast, not a fit. When the later items' wait p90 and its forecast differ by
// 1.5 times or more (and a second), the report says the cluster's behaviour drifted over the
// recording, and by how much (JSON: held_out.drift_p90_ratio, else null).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "data/cluster_model.h"
#include "sim/cluster_fit.h"
#include "sim/recorded_capacity.h"

namespace millrace::sim {

struct WaitFigures {
  std::size_t items = 0;
  data::Micros makespan = 0;  // first submission to last end
  data::Micros p50 = 0, p90 = 0, p99 = 0;
};

struct ClusterFidelity {
  std::string run;
  WaitFigures recorded;
  WaitFigures replayed;
  // Held out in time: fitted on the earliest share, the rest's waits.
  double fitted_share = 0.7;
  std::size_t fitted_items = 0;
  WaitFigures later_recorded;
  WaitFigures later_replayed;
};

// Throws data::Error naming the run when it cannot be replayed.
ClusterFidelity check_cluster_fidelity(const Recording& recording, const data::ClusterModel& model,
                                       const ClusterFitOptions& options, std::uint64_t seed = 1);

std::string format_cluster_fidelity(const ClusterFidelity& fidelity);
nlohmann::json to_json(const ClusterFidelity& fidelity);

}  // namespace millrace::sim
