// The cheapest plan (`plan --minimize cost`): among the configurations a capacity search
// evaluated (sim/capacity_plan.h: worker or node counts, each with its candidates), the one that
// meets the target at the asked confidence for the least money, by its mean cost over the
// replicas (ties: the shorter mean makespan, then the fewer workers or nodes); and the frontier of
// time against money: the configurations no other beats on both mean makespan and mean cost, so
// a reader sees what an hour sooner costs. The search evaluates the counts it needs for the
// fewest meeting the target plus its curve (powers of two): the cheapest is the cheapest of
// those, which a finer grid could undercut between them.
#pragma once

#include <optional>
#include <vector>

#include "sim/capacity_plan.h"

namespace millrace::sim {

// Throws data::Error naming --minimize cost when the question's cluster has no prices.
void require_priced(const CapacityQuestion& question);

// Throws data::Error when the rows carry no cost (nothing priced). Nullopt when none meets.
std::optional<ComparisonRow> cheapest_meeting(const CapacityQuestion& question, const std::vector<ComparisonRow>& judged);

// The rows no other row beats on both mean makespan and mean cost (one at least as good on both and
// better on one), by mean makespan; rows with equal both are kept once (the first).
std::vector<ComparisonRow> time_money_frontier(const std::vector<ComparisonRow>& rows);

// The deadline risk spot interruptions add to a node search's configuration: its share of
// replicas on target with them (the row's own) and without them (the same replicas on the same
// pools, every one on-demand). Nullopt when no pool is spot or the question is no node search.
struct SpotRisk {
  double with_interruptions = 0;
  double without_interruptions = 0;
};
std::optional<SpotRisk> spot_risk(const CapacityQuestion& question, const ComparisonRow& judged);

}  // namespace millrace::sim
