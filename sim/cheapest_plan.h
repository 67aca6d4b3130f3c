// The cheapest plan (`plan --minimize cost`): among the configurations a capacity search
// evaluated (sim/capacity_plan.h: worker or node counts, each with its candidates; sim/pool_mix.h:
// mixes of node pools, such as on-demand and spot), the one that
// meets the target at the asked confidence for the least money, by its mean cost over the
// replicas (ties: the shorter mean makespan, then the fewer workers or nodes); and the frontier of
// time against money: the configurations no other beats on both mean makespan and mean cost, so
// a reader sees what an hour sooner costs. The search evaluates the counts it needs for the
// fewest meeting the target plus its curve (powers of two): the cheapest is the cheapest of
// those, which a finer grid could undercut between them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/capacity_plan.h"
#include "sim/pool_mix.h"

namespace millrace::sim {

// Throws data::Error naming --minimize cost when the question's cluster has no prices.
void require_priced(const CapacityQuestion& question);

// Throws data::Error when the rows carry no cost (nothing priced). Nullopt when none meets.
std::optional<ComparisonRow> cheapest_meeting(const CapacityQuestion& question, const std::vector<ComparisonRow>& judged);

// The rows no other row beats on both mean makespan and mean cost (one at least as good on both and
// better on one), by mean makespan; rows with equal both are kept once (the first).
std::vector<ComparisonRow> time_money_frontier(const std::vector<ComparisonRow>& rows);

// The deadline risk spot interruptions add to a node search's configuration (a mix's too): its
// share of replicas on target with them (the row's own) and without them (the same replicas on
// the same pools, every one on-demand). Nullopt when no pool is spot (a mix: none of its nodes),
// or the question is no node search.
struct SpotRisk {
  double with_interruptions = 0;
  double without_interruptions = 0;
};
std::optional<SpotRisk> spot_risk(const CapacityQuestion& question, const ComparisonRow& judged);
// The comparison spot_risk simulates for a single pool's row (its nodes, every pool on-demand), to
// send ahead when fanned out; none when spot_risk has no figure or `judged` is a mix's.
std::optional<ComparisonSpec> spot_risk_comparison(const CapacityQuestion& question, const ComparisonRow& judged);

// Why the cheapest mix has no spot node though a spot pool was searched, from the simulations:
// the spot pool alone at its best (its fewest nodes meeting the target, else its max nodes, with
// the interruptions they suffered) and the cheapest mix with spot nodes meeting the
// target, if one does (no cheaper than the answer).
struct WhyNotSpot {
  std::string pool;
  double interruption_rate = 0;  // per node-hour: typed, fitted, or a lifetime distribution's 1 / mean life
  std::string lifetime;          // the pool's lifetime distribution as given, when it has one
  ComparisonRow alone;
  std::optional<ComparisonRow> cheapest_with_spot;
};
// One per spot pool searched, none when `cheapest` has spot nodes.
std::vector<WhyNotSpot> why_not_spot(const CapacityQuestion& question, const MixAnswer& mix,
                                     const ComparisonRow& cheapest);
// "spot alone (10 nodes of pool 'cheap') meets makespan <= 2.5h in only 15% of 20 replicas
// (asked: 90%): 3.1 nodes taken back per run at 4.0/node-hour, 4.2 attempts lost with them; no
// mix with spot nodes evaluated meets it", or, when spot alone meets the target, what it costs
// beside the answer's cost.
std::string why_not_spot_text(const CapacityQuestion& question, const WhyNotSpot& why, const ComparisonRow& cheapest);

// "3 spot nodes of pool 'cheap' and 1 on-demand node of pool 'standard'": a mix row's nodes, the
// pools at 0 left out.
std::string mix_text(const ComparisonRow& row);

}  // namespace millrace::sim
