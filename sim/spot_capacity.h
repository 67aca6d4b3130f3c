// Spot capacity of simulated node pools (sim/node_pools.h): which pools are spot, how often their
// nodes are taken back, and whether the work could survive that. A spot node's lifetime is
// exponential with the pool's interruption rate (interruptions per node-hour: a Poisson process
// per node, memoryless, so a node's remaining life is drawn when it comes up); its draws come
// from a stream of their own (interruption_seed), so adding spot to one pool changes no other
// draw of the simulation. The rate is the one the pools file types, else a fitted model's
// (data/cluster_model.h: the pool's own by name, else pooled over spot nodes); a spot pool with
// neither is refused by the file:line that declared it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "data/time.h"
#include "scheduler/planned_work.h"
#include "sim/node_pools.h"

namespace millrace::sim {

// Parses a pool's `capacity_type` ("", on-demand or spot) and `interruption_rate` ("" when not
// given; else a finite decimal >= 0) into `pool`. Throws data::Error naming `where` and the field:
// an unknown capacity type (listing the known ones), a non-numeric or negative rate, or a rate on
// an on-demand pool.
void read_spot_fields(NodePool& pool, std::string_view capacity_type, std::string_view interruption_rate,
                      const std::string& where);

// Each pool's interruption rate per node-hour (0 for on-demand pools) and where it came from
// ("typed", "fitted", "" for on-demand): the typed one, else `fitted(pool name)` when that gives
// one. Throws data::Error naming the pool's file:line when a spot pool has neither.
struct InterruptionRate {
  double per_node_hour = 0;
  std::string source;
};
using FittedRate = std::function<std::optional<double>(const std::string& pool)>;
std::vector<InterruptionRate> interruption_rates(const std::vector<NodePool>& pools, const FittedRate& fitted);

// The stream interruptions draw from, given the simulation's seed.
std::uint64_t interruption_seed(std::uint64_t simulation_seed);

// A spot node's lifetime, exponential with mean 1 / rate hours; nullopt (never interrupted) for
// rate 0 or a lifetime past a thousand years.
std::optional<data::Micros> draw_lifetime(double rate_per_node_hour, std::mt19937_64& rng);

// Refuses a rate at which the work could not get done: for each spot pool, the median duration
// of the items whose requests fit its machine would outlive a node with probability exp(-rate x
// median) below 1 % (every attempt there interrupted, over and over). The error names the pool's
// file:line and gives the figures: the rate, the node's mean lifetime, the median item, the
// chance, and the highest rate at which that chance is 1 %. `durations[i]`: item i's.
void check_survivable(const std::vector<NodePool>& pools, const std::vector<InterruptionRate>& rates,
                      const scheduler::PlannedWork& plan, const std::vector<data::Micros>& durations);

}  // namespace millrace::sim
