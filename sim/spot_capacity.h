// Spot capacity of simulated node pools (sim/node_pools.h): which pools are spot, how long their
// nodes live before they are taken back, and whether the work could survive that. A spot node's
// lifetime is drawn when it comes up: exponential with the pool's interruption rate
// (interruptions per node-hour: a Poisson process per node, memoryless), or from the pool's
// distribution of lifetimes (sim/node_lifetime.h); its draws come from a stream of their own
// (interruption_seed), so adding spot to one pool changes no other draw of the simulation. The
// rate is the one the pools file types, else a fitted model's (data/cluster_model.h: the pool's
// own by name, else pooled over spot nodes); a spot pool with neither a rate nor a lifetime is
// refused by the file:line that declared it.
//
// Survival: an attempt of the pool's median item (over the items whose requests fit its machine)
// started at a moment of a node's life taken at random finishes before the node goes with
// probability s (exp(-rate x median), or sim/node_lifetime.h's attempt_survival). Each attempt is
// then interrupted with probability 1 - s, and an item needs (1 - s) / s retries on average (the
// attempts until one survives are geometric). Below s = 1 % the work is refused (every attempt
// interrupted, over and over); from 1 % to below 50 % (more often interrupted than not) it runs
// with a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "data/cluster_model.h"
#include "data/time.h"
#include "scheduler/planned_work.h"
#include "sim/node_pools.h"

namespace millrace::sim {

// A pool's spot fields as a pools file gives them, "" when not given.
struct SpotFields {
  std::string capacity_type;      // "", on-demand or spot
  std::string interruption_rate;  // a finite decimal >= 0
  std::string lifetime;           // sim/node_lifetime.h
};

// Parses `fields` into `pool`. Throws data::Error naming `where` and the field: an unknown
// capacity type (listing the known ones), a non-numeric or negative rate, a bad lifetime, a rate
// or lifetime on an on-demand pool, or both a rate and a lifetime.
void read_spot_fields(NodePool& pool, const SpotFields& fields, const std::string& where);

// Each pool's interruption rate per node-hour (0 for on-demand pools) and where it came from
// ("typed", "fitted", "" for on-demand): the typed one, or the pool's lifetime distribution, its
// rate then one over the mean life; else the rate `fitted` (null: none) learned for the pool. Throws
// data::Error naming the pool's file:line when a spot pool has none.
struct InterruptionRate {
  double per_node_hour = 0;
  std::string source;
  std::optional<NodeLifetime> lifetime{};  // given instead of a rate
};
std::vector<InterruptionRate> interruption_rates(const std::vector<NodePool>& pools, const data::ClusterModel* fitted);

// The stream interruptions draw from, given the simulation's seed.
std::uint64_t interruption_seed(std::uint64_t simulation_seed);

// A spot node's lifetime, exponential with mean 1 / rate hours, or drawn from the lifetime
// distribution; nullopt (never interrupted) for rate 0 or a lifetime past a thousand years.
std::optional<data::Micros> draw_lifetime(const InterruptionRate& rate, std::mt19937_64& rng);

// The chance an attempt lasting `duration` survives its node (see the top of this file).
double attempt_survival(const InterruptionRate& rate, data::Micros duration);

// A spot pool whose median item survives a node with a chance from 1 % to below 50 %, with the
// warning to print: "FILE:LINE: spot pool 'cheap': each attempt of the median item that fits it
// (1.5 h) is interrupted with probability 0.53 (0.5 per node-hour typed); expect about 1.1 retries
// per item".
struct SurvivalRisk {
  std::size_t pool = 0;
  double survival = 1;
  std::string warning;
};

// Refuses a rate at which the work could not get done: for each spot pool, the median duration
// of the items whose requests fit its machine survives a node with probability below 1 % (every
// attempt there interrupted, over and over). The error names the pool's file:line and gives the
// figures: the rate (or lifetime), the node's mean lifetime, the median item, the chance, and
// (for a rate) the highest rate at which that chance is 1 %. Returns the pools at risk (survival
// below 50 %), in pool order. `durations[i]`: item i's.
std::vector<SurvivalRisk> check_survivable(const std::vector<NodePool>& pools, const std::vector<InterruptionRate>& rates,
                                       const scheduler::PlannedWork& plan, const std::vector<data::Micros>& durations);

// Keeps in `kept` each pool's riskiest (the lowest survival; the first met among equals) of
// `kept` and `more`.
void keep_riskiest(std::vector<SurvivalRisk>& kept, const std::vector<SurvivalRisk>& more);

// "warning: " and each risk's warning, a line each ("" for none): what simulate, compare and plan
// print on stderr, once per pool.
std::string survival_warnings(const std::vector<SurvivalRisk>& risks);

}  // namespace millrace::sim
