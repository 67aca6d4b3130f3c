// A plan's counts (workers or nodes, sim/capacity_plan.h) simulated elsewhere (sim/comparison.h's
// Elsewhere: a pool of workers) in batches, so that one batch's cost (a real run of the scheduler
// core) is paid for several counts and the pool's workers simulate them side by side. When the
// search waits for a count not yet sent, it goes out with every count the search will certainly
// ask later (the curve's, still unsent) and then, nearest first, the counts it may ask next, as
// long as their shards fit in the pool's workers left idle by the rounds the batch takes anyway
// (shards of the awaited and certain counts, in rounds of `workers` at once): a count looked ahead
// costs no round of its own, only its simulations. Kept results are handed over when the search
// asks their count, and dropped once it no longer can. Which counts the search asks, and every
// figure, do not depend on the batches: each replica is seeded by what it is (sim/comparison.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "sim/comparison.h"

namespace millrace::sim {

class LookaheadBatches {
 public:
  // spec(count): the comparison of a count, sent to `elsewhere`.
  LookaheadBatches(std::shared_ptr<const Elsewhere> elsewhere, std::function<ComparisonSpec(int)> spec);

  // Counts the search will ask: sent with the next batch, their results kept until asked.
  void certain(const std::vector<int>& counts);
  // The counts the search may ask next, nearest first (none asked yet); results kept of a count
  // no longer among them nor certain are dropped.
  void possible(const std::vector<int>& counts);
  // The replica results of `count` (task order), from a batch sent now unless it went ahead;
  // forgotten here. Throws what simulate_elsewhere throws.
  std::vector<ReplicaResult> take(int count);

 private:
  std::shared_ptr<const Elsewhere> elsewhere_;
  std::function<ComparisonSpec(int)> spec_;
  std::set<int> certain_;      // not yet asked
  std::vector<int> possible_;  // nearest first
  std::map<int, std::vector<ReplicaResult>> kept_;  // by count: sent ahead, not yet asked
};

}  // namespace millrace::sim
