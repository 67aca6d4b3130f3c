// Comparisons simulated elsewhere (sim/comparison.h's Elsewhere: a pool of workers) in batches,
// so that one batch's cost (a real run of the scheduler core, its pool Job and pods' start-up) is
// paid for several comparisons and the pool's workers simulate them side by side. A search (a
// plan's counts, sim/capacity_plan.h; a node plan's caps, sim/cap_search.h; a mix's grid points,
// sim/pool_mix.h) tells what it will certainly ask later and what it may ask next; when it waits
// for comparisons not yet sent (several at once: those of independent searches at one step), they
// go out with every comparison it will certainly ask (still unsent) and then, nearest first, those
// it may ask next, as long as their shards fit in the pool's workers left idle by the rounds the
// batch takes anyway (shards of the awaited and certain comparisons, in rounds of `workers` at
// once): a comparison looked ahead costs no round of its own, only its simulations. Kept results
// are handed over when the search asks their comparison, and dropped once it no longer can.
// A comparison is known by its selection (sim/sweep_shards.h: what its shards carry), so the same
// comparison asked twice is sent once. elsewhere() serves a search run inside another (a count
// search of a mix's filler pool, a node plan's caps) through this one: each of its batches carries
// this one's certain comparisons too. What the searches ask, and every figure, do not depend on
// the batches: each replica is seeded by what it is (sim/comparison.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/comparison.h"

namespace millrace::sim {

class LookaheadBatches {
 public:
  explicit LookaheadBatches(std::shared_ptr<const Elsewhere> elsewhere);
  LookaheadBatches(const LookaheadBatches&) = delete;
  LookaheadBatches& operator=(const LookaheadBatches&) = delete;

  // Comparisons the search will ask: sent with the next batch, their results kept until asked.
  void certain(const std::vector<ComparisonSpec>& specs);
  // The comparisons the search may ask next, nearest first (none asked yet); results kept of a
  // comparison no longer among them nor certain are dropped.
  void possible(const std::vector<ComparisonSpec>& specs);
  // The replica results of each of `awaited` (task order), from a batch sent now unless they went
  // ahead; forgotten here. Throws what simulate_elsewhere throws.
  std::vector<std::vector<ReplicaResult>> take(const std::vector<ComparisonSpec>& awaited);
  // An Elsewhere taking its comparisons from here (its workers and shards those of the pool);
  // valid while this lives.
  std::shared_ptr<const Elsewhere> elsewhere() const { return through_; }

 private:
  std::shared_ptr<const Elsewhere> elsewhere_;
  std::shared_ptr<const Elsewhere> through_;
  std::vector<std::pair<std::string, ComparisonSpec>> certain_;   // by key: not yet asked, as told
  std::vector<std::pair<std::string, ComparisonSpec>> possible_;  // by key: nearest first
  std::map<std::string, std::vector<ReplicaResult>> kept_;        // by key: sent ahead, not yet asked
};

// What several searches may ask, each's list nearest first, as one list nearest first: the first
// of each, then the second of each, and so on.
template <typename Asked>
std::vector<Asked> nearest_first(const std::vector<std::vector<Asked>>& lists) {
  std::vector<Asked> out;
  for (std::size_t depth = 0, left = lists.size(); left > 0; ++depth) {
    left = 0;
    for (const std::vector<Asked>& list : lists) {
      if (depth < list.size()) out.push_back(list[depth]);
      left += depth + 1 < list.size();
    }
  }
  return out;
}

}  // namespace millrace::sim
