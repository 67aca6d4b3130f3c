// A plan over a mix of node pools (`plan --minimize cost` with several pools searched, e.g. an
// on-demand pool and a spot pool of the same or another machine): which nodes of each pool meet
// the target, so that sim/cheapest_plan.h can choose the cheapest mix. A pool question
// (sim/capacity_plan.h) searched over several of its pools at once.
//
// One searched pool is the filler: the first on-demand one named (else the first named); the
// others are the grid pools. The search:
//  1. each grid pool alone (every other searched pool at 0 nodes): the fewest of its nodes meeting
//     the target, by plan_capacity's binary search over 1..max with its curve (powers of two);
//  2. each grid pool's grid: 0, the powers of two below max, max, and its fewest alone;
//  3. at each combination of the grid pools' counts (a grid point): the fewest filler nodes
//     meeting the target beside them: 0 when the grid point meets it alone, else plan_capacity's
//     binary search of the filler over 1..max (with its curve). The grid point of 0 everywhere is
//     the filler alone.
// Every mix simulated is kept (each once), for the cheapest and the frontier of time against
// money. A searched pool at 0 nodes is left out of the cluster; a mix whose pools leave some item
// no machine to fit is not simulated (it could never finish). The other pools of the question
// stay as given. Every searched pool ranges over 0..max_nodes (min_nodes must be 1).
// Fanned out (spec.elsewhere, sim/lookahead_batches.h): the pools' searches alone carry each
// other's certain counts; every grid point's mix goes in one batch; then the filler's searches
// beside the points missing the target send all their certain counts (max and the curve's) in one
// batch, with the counts each may ask first in its spare room. The answer is the same.
//
// Cost, in node counts simulated (each the question's replicas), with m = floor(log2(max)) and g
// grid pools: about g (2m + 2) for the pools alone, then (m + 3)^g - 1 grid points (m + 2 when a
// pool's fewest alone is a power of two), each one count, and 2m + 2 more for the filler's
// search where the grid point misses the target alone. Two pools with max 64: about 14 + 9 x 15
// = 149 counts. Limits: the cheapest is the cheapest of the mixes evaluated (a grid pool's count
// between two of its grid's, 12 when the grid has 8 and 16, is not tried); the filler's search
// assumes meeting the target is monotone in its count (checked against N - 1,
// sim/fewest_meeting.h), and the grid grows as a power of the grid pools' count.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "sim/capacity_plan.h"

namespace millrace::sim {

// A grid point: the grid pools' counts (the filler's entry 0), and the fewest filler nodes beside
// them meeting the target (that mix's row), none when even max filler nodes miss it.
struct MixGridPoint {
  std::vector<int> counts;  // by position in MixAnswer::pools
  std::optional<ComparisonRow> fewest;
};

struct MixAnswer {
  std::vector<std::size_t> pools;  // the searched pools (indices in the question's), as named
  std::size_t filler = 0;          // its position in `pools`
  std::vector<MixGridPoint> grid;  // in the order searched (the first grid pool's count varying slowest)
  // By position in `pools`: the pool alone at its best, judged (its fewest nodes meeting the
  // target alone, else its max nodes); none for the filler, and for a pool whose machine does
  // not fit every item.
  std::vector<std::optional<ComparisonRow>> alone;
  std::vector<ComparisonRow> evaluated;  // every mix simulated, by its counts; each row's mix set
  // The fewest nodes in all meeting the target (ties: the shorter mean makespan, then the fewer
  // spot nodes); none when no mix evaluated meets it.
  std::optional<ComparisonRow> fewest;
};

// Throws data::Error naming the option: fewer than two searched pools or a pool named twice,
// --min-nodes other than 1, a bad --max-nodes, no recorded run; and what plan_capacity throws.
MixAnswer plan_mix(const CapacityQuestion& question, const std::vector<std::size_t>& pools);

// The question's recording replayed on `mix` (each part's pool, by name, sized to its nodes; a
// part at 0 nodes left out of the cluster), judged: the best queue order's row, its mix and
// nodes (in all) set. Throws data::Error naming --pool for a part naming no pool of the question.
ComparisonRow replay_mix(const CapacityQuestion& question, const std::vector<MixPart>& mix);

// The spot nodes of a mix row.
int spot_nodes(const ComparisonRow& row);

}  // namespace millrace::sim
