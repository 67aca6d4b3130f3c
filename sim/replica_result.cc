#include "sim/replica_result.h"

#include "data/error.h"
#include "sim/json_fields.h"

namespace millrace::sim {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxCurrency = 16;
constexpr std::size_t kMaxPools = 1024;    // a cost's parts, a replica's pools at risk
constexpr std::size_t kMaxName = 256;      // a pool's name
constexpr std::size_t kMaxWarning = 4096;  // a survival warning's text

data::WaitSummary waits_of(const json& object, const std::string& where) {
  JsonFields f(object, where);
  data::WaitSummary w;
  w.items = static_cast<std::size_t>(f.count("items"));
  w.p50 = f.count("p50_us");
  w.p90 = f.count("p90_us");
  w.p99 = f.count("p99_us");
  w.max = f.count("max_us");
  w.mean_pending = f.real("mean_pending");
  f.finish("a replica's result");
  return w;
}

// An array of at most `longest` elements at `where`, else data::Error.
const json& array_of(const json& value, const std::string& where, std::size_t longest) {
  if (!value.is_array() || value.size() > longest) {
    throw data::Error(where, "must be an array of at most " + std::to_string(longest) + " elements");
  }
  return value;
}

RunCost cost_of(const json& object, const std::string& where) {
  JsonFields f(object, where);
  RunCost cost;
  cost.total.millionths = f.count("total_millionths");
  cost.currency = f.text("currency", kMaxCurrency);
  const json& pools = array_of(f.at("pools"), where + ".pools", kMaxPools);
  for (std::size_t i = 0; i < pools.size(); ++i) {
    JsonFields pool(pools[i], where + ".pools[" + std::to_string(i) + "]");
    PoolCost& part = cost.pools.emplace_back();
    part.name = pool.text("name", kMaxName);
    part.amount.millionths = pool.count("amount_millionths");
    pool.finish("a replica's result");
  }
  f.finish("a replica's result");
  return cost;
}

std::vector<SurvivalRisk> survival_risks_of(const json& value, const std::string& where) {
  const json& risks = array_of(value, where, kMaxPools);
  std::vector<SurvivalRisk> out;
  for (std::size_t i = 0; i < risks.size(); ++i) {
    JsonFields f(risks[i], where + "[" + std::to_string(i) + "]");
    SurvivalRisk& risk = out.emplace_back();
    risk.pool = static_cast<std::size_t>(f.count("pool"));
    risk.survival = f.real("survival");
    risk.warning = f.text("warning", kMaxWarning);
    f.finish("a replica's result");
  }
  return out;
}

}  // namespace

json to_json(const std::vector<ReplicaResult>& results) {
  json out = json::array();
  for (const ReplicaResult& r : results) {
    json one = {{"makespan_us", r.makespan},
                {"utilisation", r.utilisation},
                {"node_hours", r.node_hours},
                {"tail_below_tenth_us", r.tail_below_tenth},
                {"failed_attempts", r.failed_attempts},
                {"failed", r.failed},
                {"waits", {{"items", r.waits.items}, {"p50_us", r.waits.p50}, {"p90_us", r.waits.p90},
                           {"p99_us", r.waits.p99}, {"max_us", r.waits.max}, {"mean_pending", r.waits.mean_pending}}},
                {"nodes_interrupted", r.nodes_interrupted},
                {"attempts_interrupted", r.attempts_interrupted}};
    if (r.cost) {
      json pools = json::array();
      for (const PoolCost& part : r.cost->pools) {
        pools.push_back({{"name", part.name}, {"amount_millionths", part.amount.millionths}});
      }
      one["cost"] = {{"total_millionths", r.cost->total.millionths}, {"currency", r.cost->currency}, {"pools", pools}};
    }
    json risks = json::array();
    for (const SurvivalRisk& risk : r.survival_risks) {
      risks.push_back({{"pool", risk.pool}, {"survival", risk.survival}, {"warning", risk.warning}});
    }
    one["survival_risks"] = std::move(risks);
    out.push_back(std::move(one));
  }
  return out;
}

std::vector<ReplicaResult> replica_results_from_json(const json& results, std::size_t expected,
                                                     const std::string& input) {
  if (!results.is_array() || results.size() != expected) {
    throw data::Error(input, "must be an array of " + std::to_string(expected) + " replica results");
  }
  std::vector<ReplicaResult> out;
  out.reserve(expected);
  for (std::size_t i = 0; i < results.size(); ++i) {
    JsonFields f(results[i], input + "[" + std::to_string(i) + "]");
    ReplicaResult r;
    r.makespan = f.count("makespan_us");
    r.utilisation = f.real("utilisation");
    r.node_hours = f.real("node_hours");
    r.tail_below_tenth = f.count("tail_below_tenth_us");
    r.failed_attempts = static_cast<std::size_t>(f.count("failed_attempts"));
    r.failed = f.flag("failed");
    r.waits = waits_of(f.at("waits"), f.where() + ".waits");
    r.nodes_interrupted = static_cast<std::size_t>(f.count("nodes_interrupted"));
    r.attempts_interrupted = static_cast<std::size_t>(f.count("attempts_interrupted"));
    if (f.has("cost")) r.cost = cost_of(f.at("cost"), f.where() + ".cost");
    r.survival_risks = survival_risks_of(f.at("survival_risks"), f.where() + ".survival_risks");
    f.finish("a replica's result");
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace millrace::sim
