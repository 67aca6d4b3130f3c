// The cluster's behaviour learned from recorded runs (fitted by sim/cluster_fit.h, written by
// `millrace fit` into the model file under "cluster", drawn by sim::SimCluster): the placement
// delay that capacity does not explain, the start-up latency, failures by reason and when in the
// attempt they happen, the gap between items on a pool worker, the per-Job overhead of one Job per
// item, and node provisioning. Each delay is kept as empirical quantiles (data/empirical_quantiles.h)
// over all observations and per item type where a type has enough of its own, each with its
// observation count; a part the recordings cannot identify says why instead, and is never drawn.
// Spot nodes' interruption rates are kept per pool with their observation counts and interval.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/empirical_quantiles.h"
#include "data/time.h"

namespace millrace::data {

// One delay in microseconds, per item type where a type had enough observations.
struct TypedDelays {
  EmpiricalQuantiles pooled;                          // every observation
  std::map<std::string, EmpiricalQuantiles> by_type;  // types with enough of their own
  std::string unidentified;                           // why the recordings cannot identify it; "" when fitted

  bool identified() const { return unidentified.empty() && !pooled.empty(); }
  // The type's own quantiles, else the pooled ones.
  const EmpiricalQuantiles& of_type(const std::string& type) const;
  // A draw for an item of `type`, u uniform in [0, 1), rounded to the microsecond.
  Micros draw(const std::string& type, double u) const;

  friend bool operator==(const TypedDelays&, const TypedDelays&) = default;
};

// Attempts that failed for one reason.
struct FailureMode {
  std::string reason;           // "exit", "timeout", "node-lost", ...
  int exit_code = 1;            // the most common among them
  std::size_t failures = 0;
  double probability = 0;       // of an attempt failing so
  EmpiricalQuantiles timing;    // when: the fraction of the item's duration it ran before it failed

  friend bool operator==(const FailureMode&, const FailureMode&) = default;
};

struct TypeFailures {
  std::size_t attempts = 0;         // attempts observed
  std::vector<FailureMode> modes;   // by reason name

  friend bool operator==(const TypeFailures&, const TypeFailures&) = default;
};

struct FittedFailures {
  TypeFailures pooled;
  std::map<std::string, TypeFailures> by_type;
  std::string unidentified;

  bool identified() const { return unidentified.empty() && !pooled.modes.empty(); }
  const TypeFailures& of_type(const std::string& type) const;

  friend bool operator==(const FittedFailures&, const FittedFailures&) = default;
};

// Spot nodes' interruptions in one pool (or all): the departures of spot nodes per spot node-hour
// watched (a Poisson rate), with the exact 90 % interval (Garwood: chi-square quantiles).
struct PoolInterruptions {
  std::size_t nodes = 0;        // spot nodes watched
  std::size_t departures = 0;   // of them, seen to leave
  double node_hours = 0;        // watched, from arrival (or the run's start) to departure (or its end)
  double rate = 0;              // departures / node_hours, per node-hour
  double low = 0;               // the 90 % interval of the rate
  double high = 0;

  friend bool operator==(const PoolInterruptions&, const PoolInterruptions&) = default;
};

struct SpotInterruptions {
  PoolInterruptions pooled;
  std::map<std::string, PoolInterruptions> by_pool;  // pools with a departure of their own
  std::string unidentified;                          // why the recordings give no rate; "" when fitted

  bool identified() const { return unidentified.empty() && pooled.departures > 0; }
  // The pool's own rate, else the pooled one; nullopt when not identified.
  std::optional<double> rate_of(const std::string& pool) const;

  friend bool operator==(const SpotInterruptions&, const SpotInterruptions&) = default;
};

struct ClusterModel {
  std::string source;        // the runs it was fitted from
  std::string capacity;      // the capacity each was replayed on
  TypedDelays placement;     // submitted -> placed, less what capacity explains
  TypedDelays startup;       // placed -> working
  FittedFailures failures;
  TypedDelays worker_gap;    // pool workers: one item's end to the next item's start
  TypedDelays job_overhead;  // one Job per item: submitted -> working, less capacity waits
  TypedDelays provisioning;  // a node joining the run: ordered -> its first pod placed
  SpotInterruptions interruptions;  // spot pools' rates (a model file without them: unidentified)

  // The "cluster" object of the model file.
  nlohmann::json to_json() const;
  // Throws Error naming `input` and the field's path (e.g. "cluster.startup.pooled.quantiles_us[3]")
  // for anything missing, mistyped or out of range.
  static ClusterModel from_json(const nlohmann::json& json, const std::string& input);

  friend bool operator==(const ClusterModel&, const ClusterModel&) = default;
};

}  // namespace millrace::data
