#include "sim/lookahead_batches.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "sim/sweep_shards.h"

namespace millrace::sim {

namespace {

// What a comparison's results depend on beside the bundle: its selection, as its shards carry it.
std::string key_of(const ComparisonSpec& spec) { return payload_of({"", selection_of(spec), Shard{}}); }

bool listed(const std::vector<std::pair<std::string, ComparisonSpec>>& list, const std::string& key) {
  return std::any_of(list.begin(), list.end(), [&](const auto& entry) { return entry.first == key; });
}

}  // namespace

LookaheadBatches::LookaheadBatches(std::shared_ptr<const Elsewhere> elsewhere) : elsewhere_(std::move(elsewhere)) {
  auto through = std::make_shared<Elsewhere>();
  through->batch = [this](const std::vector<ComparisonSpec>& specs) { return take(specs); };
  through->workers = elsewhere_->workers;
  through->replicas_per_shard = elsewhere_->replicas_per_shard;
  through_ = std::move(through);
}

void LookaheadBatches::certain(const std::vector<ComparisonSpec>& specs) {
  for (const ComparisonSpec& spec : specs) {
    std::string key = key_of(spec);
    if (!listed(certain_, key)) certain_.emplace_back(std::move(key), spec);
  }
}

void LookaheadBatches::possible(const std::vector<ComparisonSpec>& specs) {
  possible_.clear();
  for (const ComparisonSpec& spec : specs) possible_.emplace_back(key_of(spec), spec);
  for (auto kept = kept_.begin(); kept != kept_.end();) {
    const bool reachable = listed(certain_, kept->first) || listed(possible_, kept->first);
    kept = reachable ? std::next(kept) : kept_.erase(kept);
  }
}

std::vector<std::vector<ReplicaResult>> LookaheadBatches::take(const std::vector<ComparisonSpec>& awaited) {
  // The awaited first (their shards leased first), then the certain, then the possible.
  std::vector<std::pair<std::string, ComparisonSpec>> batch;
  std::size_t shards = 0;
  // Adds a comparison not yet kept nor in the batch when its shards keep the batch's within
  // `room` (none: always); false when they would not.
  auto send = [&](const std::string& key, const ComparisonSpec& spec, std::optional<std::size_t> room) {
    if (kept_.count(key) || listed(batch, key)) return true;
    const std::size_t more = shards_of(spec, elsewhere_->replicas_per_shard).size();
    if (room && shards + more > *room) return false;
    batch.emplace_back(key, spec).second.elsewhere = elsewhere_;
    shards += more;
    return true;
  };
  std::vector<std::string> keys;
  for (const ComparisonSpec& spec : awaited) {
    const std::string& key = keys.emplace_back(key_of(spec));
    std::erase_if(certain_, [&](const auto& entry) { return entry.first == key; });
    send(key, spec, std::nullopt);
  }
  if (!batch.empty()) {
    for (const auto& [key, spec] : certain_) send(key, spec, std::nullopt);
    const std::size_t workers = static_cast<std::size_t>(std::max(1, elsewhere_->workers));
    const std::size_t room = (shards + workers - 1) / workers * workers;  // the rounds taken anyway
    for (const auto& [key, spec] : possible_) {
      if (!send(key, spec, room)) break;
    }
    std::vector<ComparisonSpec> specs;
    for (auto& entry : batch) specs.push_back(std::move(entry.second));
    std::vector<std::vector<ReplicaResult>> results = simulate_elsewhere(specs);
    for (std::size_t i = 0; i < batch.size(); ++i) kept_[batch[i].first] = std::move(results[i]);
  }
  std::vector<std::vector<ReplicaResult>> out;
  for (const std::string& key : keys) out.push_back(kept_.at(key));
  for (const std::string& key : keys) kept_.erase(key);
  return out;
}

}  // namespace millrace::sim
