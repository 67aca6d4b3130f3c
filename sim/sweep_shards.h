// A comparison (sim/comparison.h) cut into shards for a pool of workers elsewhere: each shard is
// a work item of a real run of the scheduler core (cli/sweep_fanout.h), and what a worker needs
// to simulate it is its item's payload: the SHA-256 of the sweep's bundle (the options and files
// the worker rebuilds the base spec from, cli/sweep_bundle.h), the selection (what of that base
// this comparison keeps or changes: the worker counts, orders and candidates of one count of a
// plan, the scheduler's parameters with their type limits, seed and replicas, and the simulated
// cluster's node pools as the comparison has them: a node search sizes them, leaves pools out of
// a mix or makes spot pools on-demand, sim/node_pools_json.h) and the shard (a combination, a
// block of replicas). The worker rebuilds the very spec, so each replica is seeded and drawn as it
// would be here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/concurrency_policy.h"
#include "scheduler/work_queue.h"
#include "sim/comparison.h"
#include "sim/node_pools.h"

namespace millrace::sim {

struct ComparisonSelection {
  std::vector<int> workers;
  std::vector<scheduler::QueueOrder> orders;
  std::vector<std::string> partitioners;
  std::vector<std::string> listed;  // names of the base's listed partitions kept, in order
  bool recorded = false;            // the recorded run's rows are kept
  int replicas = 1;
  std::uint64_t seed = 1;
  scheduler::PolicyParams params;
  NodePoolsConfig node_pools;  // replaces the base's (none: a cluster of slots)
};

ComparisonSelection selection_of(const ComparisonSpec& spec);
// `base` narrowed to `selection`. Throws data::Error naming a listed partition or the recorded
// run the base does not have.
ComparisonSpec selected(ComparisonSpec base, const ComparisonSelection& selection);

// The shards of a comparison of `spec`: every combination's replicas in blocks of at most
// `replicas_per_shard`, in task order.
std::vector<Shard> shards_of(const ComparisonSpec& spec, int replicas_per_shard);

// What a shard's work item carries.
struct ShardOrder {
  std::string bundle_sha256;  // 64 lowercase hex digits
  ComparisonSelection selection;
  Shard shard;
};

std::string payload_of(const ShardOrder& order);
// Reads a payload_of text; throws data::Error naming `input` and the field for anything else.
ShardOrder shard_order_from_payload(const std::string& text, const std::string& input);

// Whether `text` is 64 lowercase hex digits (a SHA-256 as sha256_hex writes it).
bool is_sha256_hex(const std::string& text);

}  // namespace millrace::sim
