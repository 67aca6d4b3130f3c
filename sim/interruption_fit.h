// Spot pools' interruption rates fitted from recorded node departures (data/records.h
// NodeArrival, recorded by a Kubernetes run's node watch or imported): each spot node is watched
// from its arrival (when ready, else created; a node there before the run from the run's start)
// to its departure, or to the recording's end (its last attempt's end, or a later departure).
// The rate is departures per node-hour watched, over all spot nodes and per pool with a departure
// of its own, with the exact 90 % Poisson interval (Garwood: the 5 % quantile of a gamma of shape
// k, the 95 % one of shape k + 1, over the node-hours). No spot node, or none seen to leave,
// leaves the rate unidentified with the reason (and, with no departure, the rate's upper bound).
#pragma once

#include <string>
#include <vector>

#include "data/cluster_model.h"
#include "sim/recorded_capacity.h"

namespace millrace::sim {

data::SpotInterruptions fit_interruptions(const std::vector<Recording>& recordings);

// One line: "0.0512 per node-hour (90 % 0.0401-0.0644), 60 departures of 200
// spot nodes over 1,172 node-hours; by pool: ...", or why unidentified.
std::string interruptions_text(const data::SpotInterruptions& interruptions);

}  // namespace millrace::sim
