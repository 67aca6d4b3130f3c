#include "sim/lookahead_batches.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "sim/sweep_shards.h"

namespace millrace::sim {

LookaheadBatches::LookaheadBatches(std::shared_ptr<const Elsewhere> elsewhere, std::function<ComparisonSpec(int)> spec)
    : elsewhere_(std::move(elsewhere)), spec_(std::move(spec)) {}

void LookaheadBatches::certain(const std::vector<int>& counts) { certain_.insert(counts.begin(), counts.end()); }

void LookaheadBatches::possible(const std::vector<int>& counts) {
  possible_ = counts;
  for (auto kept = kept_.begin(); kept != kept_.end();) {
    const bool reachable =
        certain_.count(kept->first) || std::find(counts.begin(), counts.end(), kept->first) != counts.end();
    kept = reachable ? std::next(kept) : kept_.erase(kept);
  }
}

std::vector<ReplicaResult> LookaheadBatches::take(int count) {
  certain_.erase(count);
  if (const auto kept = kept_.find(count); kept != kept_.end()) {
    std::vector<ReplicaResult> results = std::move(kept->second);
    kept_.erase(kept);
    return results;
  }
  // The awaited count first (its shards leased first), then the certain, then the possible.
  std::vector<int> batch;
  std::vector<ComparisonSpec> specs;
  std::size_t shards = 0;
  // Adds count n to the batch when its shards keep the batch's within `room` (none: always).
  auto send = [&](int n, std::optional<std::size_t> room) {
    ComparisonSpec spec = spec_(n);
    const std::size_t more = shards_of(spec, elsewhere_->replicas_per_shard).size();
    if (room && shards + more > *room) return false;
    batch.push_back(n);
    specs.push_back(std::move(spec));
    shards += more;
    return true;
  };
  send(count, std::nullopt);
  for (int n : certain_) {
    if (!kept_.count(n)) send(n, std::nullopt);
  }
  const std::size_t workers = static_cast<std::size_t>(std::max(1, elsewhere_->workers));
  const std::size_t room = (shards + workers - 1) / workers * workers;  // the rounds taken anyway
  for (int n : possible_) {
    if (std::find(batch.begin(), batch.end(), n) != batch.end() || kept_.count(n)) continue;
    if (!send(n, room)) break;
  }
  std::vector<std::vector<ReplicaResult>> results = simulate_elsewhere(specs);
  for (std::size_t i = 1; i < batch.size(); ++i) kept_[batch[i]] = std::move(results[i]);
  return std::move(results.front());
}

}  // namespace millrace::sim
