#include "sim/sweep_shards.h"

#include <algorithm>
#include <limits>

#include "data/error.h"
#include "data/importers/json_input.h"
#include "sim/json_fields.h"
#include "sim/node_pools_json.h"

namespace millrace::sim {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxNames = 4096;  // candidates, worker counts, orders of one comparison

json params_json(const scheduler::PolicyParams& p) {
  return {{"workers", p.workers},         {"min_workers", p.min_workers}, {"max_in_flight", p.max_in_flight},
          {"type_limits", p.type_limits}, {"deadline_us", p.deadline},    {"scale_up_delay_us", p.scale_up_delay}};
}

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxMicros = std::numeric_limits<std::int64_t>::max();

scheduler::PolicyParams params_from(const json& object, const std::string& where) {
  JsonFields r(object, where);
  scheduler::PolicyParams p;
  p.workers = static_cast<int>(r.integer("workers", 0, kMaxInt));
  p.min_workers = static_cast<int>(r.integer("min_workers", 0, kMaxInt));
  p.max_in_flight = static_cast<int>(r.integer("max_in_flight", 0, kMaxInt));
  p.deadline = r.integer("deadline_us", 0, kMaxMicros);
  p.scale_up_delay = r.integer("scale_up_delay_us", 0, kMaxMicros);
  const json& limits = r.at("type_limits");
  if (!limits.is_object()) throw data::Error(where + ".type_limits", "must be an object of counts by item type");
  for (const auto& [type, limit] : limits.items()) {
    if (!limit.is_number_integer() || limit.get<std::int64_t>() < 0 || limit.get<std::int64_t>() > kMaxInt) {
      throw data::Error(where + ".type_limits." + type, "must be an integer from 0 to " + std::to_string(kMaxInt));
    }
    p.type_limits[type] = limit.get<int>();
  }
  r.finish("a scheduler's parameters");
  return p;
}

ComparisonSelection selection_from(const json& object, const std::string& where) {
  JsonFields r(object, where);
  ComparisonSelection s;
  const json& workers = r.at("workers");
  if (!workers.is_array() || workers.empty() || workers.size() > kMaxNames) {
    throw data::Error(where + ".workers", "must be an array of 1 to " + std::to_string(kMaxNames) + " worker counts");
  }
  for (const json& w : workers) {
    if (!w.is_number_integer() || w.get<std::int64_t>() < 1 || w.get<std::int64_t>() > kMaxInt) {
      throw data::Error(where + ".workers", "must hold worker counts from 1 to " + std::to_string(kMaxInt));
    }
    s.workers.push_back(w.get<int>());
  }
  for (const std::string& order : r.names("orders", kMaxNames)) {
    try {
      s.orders.push_back(scheduler::queue_order_from_string(order));
    } catch (const data::Error& e) {
      throw data::Error(where + ".orders", e.what());
    }
  }
  if (s.orders.empty()) throw data::Error(where + ".orders", "needs at least one queue order");
  s.partitioners = r.names("partitioners", kMaxNames);
  s.listed = r.names("listed", kMaxNames);
  const json& recorded = r.at("recorded");
  if (!recorded.is_boolean()) throw data::Error(where + ".recorded", "must be true or false");
  s.recorded = recorded.get<bool>();
  s.replicas = static_cast<int>(r.integer("replicas", 1, kMaxInt));
  const json& seed = r.at("seed");
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0)) {
    throw data::Error(where + ".seed", "must be an integer from 0 to 2^64 - 1");
  }
  s.seed = seed.get<std::uint64_t>();
  s.params = params_from(r.at("params"), where + ".params");
  s.node_pools = node_pools_from_json(r.at("node_pools"), where + ".node_pools");
  r.finish("a shard's selection");
  return s;
}

}  // namespace

ComparisonSelection selection_of(const ComparisonSpec& spec) {
  ComparisonSelection s;
  s.workers = spec.workers;
  s.orders = spec.orders;
  s.partitioners = spec.partitioners;
  for (const ListedPartition& listed : spec.listed) s.listed.push_back(listed.name);
  s.recorded = spec.recorded_items.has_value();
  s.replicas = spec.replicas;
  s.seed = spec.seed;
  s.params = spec.base.scheduler.params;
  s.node_pools = spec.base.cluster.pools;
  return s;
}

ComparisonSpec selected(ComparisonSpec base, const ComparisonSelection& s) {
  if (s.recorded && !base.recorded_items) throw data::Error("the sweep's bundle", "has no recorded run to replay");
  if (!s.recorded) base.recorded_items.reset();
  std::vector<ListedPartition> listed;
  for (const std::string& name : s.listed) {
    auto found = std::find_if(base.listed.begin(), base.listed.end(), [&](const ListedPartition& l) { return l.name == name; });
    if (found == base.listed.end()) throw data::Error("the sweep's bundle", "has no listed partition " + name);
    listed.push_back(std::move(*found));
  }
  base.listed = std::move(listed);
  base.workers = s.workers;
  base.orders = s.orders;
  base.partitioners = s.partitioners;
  base.replicas = s.replicas;
  base.seed = s.seed;
  base.base.scheduler.params = s.params;
  base.base.cluster.pools = s.node_pools;
  return base;
}

std::vector<Shard> shards_of(const ComparisonSpec& spec, int replicas_per_shard) {
  std::vector<Shard> shards;
  const int block = std::max(1, replicas_per_shard);
  for (std::size_t c = 0; c < combinations_of(spec); ++c) {
    for (int first = 0; first < spec.replicas; first += block) {
      shards.push_back({c, first, std::min(block, spec.replicas - first)});
    }
  }
  return shards;
}

std::string payload_of(const ShardOrder& order) {
  const ComparisonSelection& s = order.selection;
  json orders = json::array();
  for (scheduler::QueueOrder o : s.orders) orders.push_back(scheduler::to_string(o));
  return json{{"bundle_sha256", order.bundle_sha256},
              {"selection", {{"workers", s.workers},
                             {"orders", orders},
                             {"partitioners", s.partitioners},
                             {"listed", s.listed},
                             {"recorded", s.recorded},
                             {"replicas", s.replicas},
                             {"seed", s.seed},
                             {"params", params_json(s.params)},
                             {"node_pools", to_json(s.node_pools)}}},
              {"shard", {{"combination", order.shard.combination},
                         {"first_replica", order.shard.first_replica},
                         {"replicas", order.shard.replicas}}}}
      .dump();
}

ShardOrder shard_order_from_payload(const std::string& text, const std::string& input) {
  const json payload = data::importers::parse_json_text(text, input);
  JsonFields r(payload, input);
  ShardOrder order;
  const json& sha = r.at("bundle_sha256");
  if (!sha.is_string() || !is_sha256_hex(sha.get<std::string>())) {
    throw data::Error(input + ".bundle_sha256", "must be 64 lowercase hex digits");
  }
  order.bundle_sha256 = sha.get<std::string>();
  order.selection = selection_from(r.at("selection"), input + ".selection");
  JsonFields shard(r.at("shard"), input + ".shard");
  order.shard.combination = static_cast<std::size_t>(shard.integer("combination", 0, kMaxInt));
  order.shard.first_replica = static_cast<int>(shard.integer("first_replica", 0, kMaxInt));
  order.shard.replicas = static_cast<int>(shard.integer("replicas", 1, kMaxInt));
  shard.finish("a shard");
  r.finish("a shard's payload");
  return order;
}

bool is_sha256_hex(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace millrace::sim
