// A worker pool double for comparisons fanned out (sim/comparison.h's Elsewhere): each batch is
// simulated here, shard by shard (sim/sweep_shards.h), as the pool's workers would, and shown to
// the test first (what it asserts of the batches: their number, what each held).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "sim/comparison.h"
#include "sim/sweep_shards.h"

namespace millrace::test_support {

inline std::shared_ptr<sim::Elsewhere> pool_double(
    int workers, int replicas_per_shard, std::function<void(const std::vector<sim::ComparisonSpec>&)> seen) {
  auto pool = std::make_shared<sim::Elsewhere>();
  pool->workers = workers;
  pool->replicas_per_shard = replicas_per_shard;
  pool->batch = [replicas_per_shard, seen = std::move(seen)](const std::vector<sim::ComparisonSpec>& specs) {
    seen(specs);
    std::vector<std::vector<sim::ReplicaResult>> results;
    for (const sim::ComparisonSpec& spec : specs) {
      std::vector<sim::ReplicaResult>& mine = results.emplace_back();
      for (const sim::Shard& shard : sim::shards_of(spec, replicas_per_shard)) {
        for (sim::ReplicaResult& r : sim::run_shard(spec, shard)) mine.push_back(std::move(r));
      }
    }
    return results;
  };
  return pool;
}

}  // namespace millrace::test_support
