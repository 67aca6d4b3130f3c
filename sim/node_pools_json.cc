#include "sim/node_pools_json.h"

#include <cmath>
#include <limits>

#include "data/error.h"
#include "sim/json_fields.h"

namespace millrace::sim {

namespace {

using nlohmann::json;

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxMicros = std::numeric_limits<std::int64_t>::max();
constexpr std::size_t kMaxPools = 4096;
constexpr std::size_t kMaxText = 4096;  // names, file:line, a lifetime as given

json pool_json(const NodePool& p) {
  json lifetime = nullptr;
  if (p.lifetime) lifetime = {{"shape", p.lifetime->shape}, {"scale_us", p.lifetime->scale}, {"text", p.lifetime->text}};
  return {{"name", p.name},
          {"count", p.count},
          {"min", p.min},
          {"max", p.max},
          {"provision_delay_us", p.provision_delay},
          {"provision_delay_given", p.provision_delay_given},
          {"capacity", p.capacity},
          {"price_millionths", p.price ? json(p.price->millionths) : json(nullptr)},
          {"billing", {{"unit_us", p.billing.unit}, {"minimum_us", p.billing.minimum}}},
          {"spot", p.spot},
          {"interruption_rate", p.interruption_rate ? json(*p.interruption_rate) : json(nullptr)},
          {"lifetime", lifetime},
          {"declared_at", p.declared_at}};
}

NodeLifetime lifetime_from(const json& value, const std::string& where) {
  JsonFields r(value, where);
  NodeLifetime lifetime;
  lifetime.shape = r.real("shape");
  if (!(lifetime.shape > 0)) throw data::Error(where + ".shape", "must be a finite number above 0");
  lifetime.scale = r.integer("scale_us", 1, kMaxMicros);
  lifetime.text = r.text("text", kMaxText);
  r.finish("a node lifetime");
  return lifetime;
}

NodePool pool_from(const json& value, const std::string& where) {
  JsonFields r(value, where);
  NodePool p;
  p.name = r.text("name", kMaxText);
  p.count = static_cast<int>(r.integer("count", 0, kMaxInt));
  p.min = static_cast<int>(r.integer("min", 0, kMaxInt));
  p.max = static_cast<int>(r.integer("max", 0, kMaxInt));
  p.provision_delay = r.integer("provision_delay_us", 0, kMaxMicros);
  p.provision_delay_given = r.flag("provision_delay_given");
  const json& capacity = r.at("capacity");
  if (!capacity.is_object()) throw data::Error(where + ".capacity", "must be an object of milli-units by resource");
  JsonFields resources(capacity, where + ".capacity");
  for (const auto& [resource, milli] : capacity.items()) {
    if (resource.empty()) throw data::Error(where + ".capacity", "a resource needs a name");
    p.capacity[resource] = resources.count(resource.c_str());
  }
  if (!r.at("price_millionths").is_null()) {
    p.price = data::Money{r.integer("price_millionths", 0, data::kMaxPrice.millionths)};
  }
  JsonFields billing(r.at("billing"), where + ".billing");
  p.billing.unit = billing.integer("unit_us", 1, kMaxMicros);
  p.billing.minimum = billing.count("minimum_us");
  billing.finish("a billing rule");
  p.spot = r.flag("spot");
  if (!r.at("interruption_rate").is_null()) p.interruption_rate = r.real("interruption_rate");
  if (!r.at("lifetime").is_null()) p.lifetime = lifetime_from(r.at("lifetime"), where + ".lifetime");
  if ((p.interruption_rate || p.lifetime) && !p.spot) {
    throw data::Error(where, "pool '" + p.name + "' has an interruption rate or lifetime but is not spot");
  }
  if (p.interruption_rate && p.lifetime) {
    throw data::Error(where, "pool '" + p.name + "' has both an interruption rate and a lifetime");
  }
  p.declared_at = r.text("declared_at", kMaxText);
  r.finish("a node pool");
  return p;
}

}  // namespace

json to_json(const NodePoolsConfig& config) {
  json pools = json::array();
  for (const NodePool& pool : config.pools) pools.push_back(pool_json(pool));
  return {{"pools", pools},
          {"placement", to_string(config.placement)},
          {"expander", to_string(config.expander)},
          {"scale_down_delay_us", config.scale_down_delay}};
}

NodePoolsConfig node_pools_from_json(const json& value, const std::string& where) {
  JsonFields r(value, where);
  NodePoolsConfig config;
  const json& pools = r.at("pools");
  if (!pools.is_array() || pools.size() > kMaxPools) {
    throw data::Error(where + ".pools", "must be an array of at most " + std::to_string(kMaxPools) + " node pools");
  }
  for (std::size_t i = 0; i < pools.size(); ++i) {
    config.pools.push_back(pool_from(pools[i], where + ".pools[" + std::to_string(i) + "]"));
  }
  if (!config.pools.empty()) check_node_pools(config.pools, where + ".pools");
  config.placement = placement_named(r.text("placement", kMaxText), where + ".placement");
  config.expander = expander_named(r.text("expander", kMaxText), where + ".expander");
  config.scale_down_delay = r.integer("scale_down_delay_us", 0, kMaxMicros);
  r.finish("the node pools");
  return config;
}

}  // namespace millrace::sim
