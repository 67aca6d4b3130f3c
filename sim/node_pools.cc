#include "sim/node_pools.h"

#include <cstdint>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/csv_table.h"
#include "data/importers/fields.h"
#include "data/importers/json_input.h"
#include "data/importers/text_input.h"
#include "data/billing.h"
#include "data/money.h"
#include "data/quantity.h"
#include "data/registry.h"
#include "data/text_excerpt.h"
#include "data/typed_duration.h"
#include "sim/spot_capacity.h"

namespace millrace::sim {

namespace {

const data::Registry<Placement>& placements() {
  static const data::Registry<Placement> registry = [] {
    data::Registry<Placement> r("placement");
    r.add("first-fit", Placement::kFirstFit);
    r.add("most-allocated", Placement::kMostAllocated);
    r.add("least-allocated", Placement::kLeastAllocated);
    return r;
  }();
  return registry;
}

const data::Registry<Expander>& expanders() {
  static const data::Registry<Expander> registry = [] {
    data::Registry<Expander> r("expander");
    r.add("first", Expander::kFirst);
    r.add("least-waste", Expander::kLeastWaste);
    return r;
  }();
  return registry;
}

// Every field of a pool, as its CSV column and its JSON key (capacities besides: capacity.NAME
// columns, a "capacity" object): the one list both readers check a file against, so that a
// misspelt field is refused by file:line rather than dropped. `required`: a CSV must have it.
struct PoolField {
  const char* column;
  const char* key;
  bool required;
};
constexpr PoolField kPoolFields[] = {{"pool", "name", true},
                                     {"count", "count", true},
                                     {"min", "min", true},
                                     {"max", "max", true},
                                     {"provision_delay", "provision_delay", true},
                                     {"price", "price", false},
                                     {"billing", "billing", false},
                                     {"capacity_type", "capacity_type", false},
                                     {"interruption_rate", "interruption_rate", false},
                                     {"lifetime", "lifetime", false}};
constexpr std::string_view kCapacityPrefix = "capacity.";
constexpr const char* kCapacityKey = "capacity";

// "pool, count, ..., capacity.NAME" (CSV columns) or "name, count, ..., capacity" (JSON keys).
std::string known_fields(bool columns) {
  std::string known;
  for (const PoolField& field : kPoolFields) known += std::string(columns ? field.column : field.key) + ", ";
  return known + (columns ? std::string(kCapacityPrefix) + "NAME" : kCapacityKey);
}

bool is_pool_field(std::string_view name, bool columns) {
  if (columns && name.starts_with(kCapacityPrefix) && name.size() > kCapacityPrefix.size()) return true;
  if (!columns && name == kCapacityKey) return true;
  for (const PoolField& field : kPoolFields) {
    if (name == (columns ? field.column : field.key)) return true;
  }
  return false;
}

// The optional fields of a pool, each read as text by `field` ("" when not given): its price,
// billing and spot fields.
template <typename Field>
void read_optional_fields(NodePool& pool, const Field& field, const std::string& where) {
  if (const std::string price = field("price"); !price.empty()) pool.price = data::parse_money(price, where + ": price");
  pool.billing = data::parse_billing(field("billing"), where + ": billing");
  read_spot_fields(pool, {field("capacity_type"), field("interruption_rate"), field("lifetime")}, where);
}

std::vector<NodePool> read_csv(const std::string& path) {
  data::importers::TextInput input(path);
  data::importers::CsvReader csv(input);
  const std::vector<std::string>& header = csv.header();
  for (const PoolField& field : kPoolFields) {
    if (field.required && !csv.column(field.column)) {
      throw data::Error(path + ":1", std::string("missing column ") + field.column + " (" + known_fields(true) + ")");
    }
  }
  for (const std::string& column : header) {
    if (!is_pool_field(column, true)) {
      throw data::Error(path + ":1", "unknown column " + data::excerpt(column) + " (known: " + known_fields(true) + ")");
    }
  }
  std::vector<NodePool> pools;
  data::importers::CsvRow row;
  while (csv.next_row(row)) {
    const std::string where = path + ":" + std::to_string(row.line);
    auto cell = [&](const char* column) -> const std::string& { return row.fields[*csv.column(column)]; };
    NodePool pool;
    pool.name = cell("pool");
    pool.count = data::importers::parse_int32(cell("count"), where, "count");
    pool.min = data::importers::parse_int32(cell("min"), where, "min");
    pool.max = data::importers::parse_int32(cell("max"), where, "max");
    pool.provision_delay_given = !cell("provision_delay").empty();
    if (pool.provision_delay_given) {
      pool.provision_delay = data::parse_duration(cell("provision_delay"), where + ": provision_delay");
    }
    read_optional_fields(pool, [&](const char* column) {
      const auto index = csv.column(column);
      return index ? row.fields[*index] : std::string();
    }, where);
    pool.declared_at = where;
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (!header[c].starts_with(kCapacityPrefix) || row.fields[c].empty()) continue;
      pool.capacity[header[c].substr(kCapacityPrefix.size())] =
          data::parse_quantity_milli(row.fields[c], where + ": " + header[c]);
    }
    check_node_pools({pool}, where);
    pools.push_back(std::move(pool));
  }
  return pools;
}

std::vector<NodePool> read_json(const std::string& path) {
  data::importers::TextInput input(path);
  std::vector<NodePool> pools;
  const nlohmann::json doc = data::importers::parse_json_list(input, "pools", [&](const nlohmann::json& p,
                                                                                  const std::string& line) {
    const std::string where = line + ": pool " + std::to_string(pools.size() + 1);
    auto integer = [&](const char* key, int fallback) {
      if (!p.contains(key)) return fallback;
      if (!p[key].is_number_integer()) throw data::Error(where, std::string(key) + " must be an integer");
      return data::importers::parse_int32(p[key].dump(), where, key);
    };
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
      throw data::Error(where, "a pool is an object with a \"name\"");
    }
    for (const auto& [key, value] : p.items()) {
      if (!is_pool_field(key, false)) {
        throw data::Error(where, "unknown key " + data::excerpt(key) + " (known: " + known_fields(false) + ")");
      }
    }
    NodePool pool;
    pool.name = p["name"].get<std::string>();
    pool.count = integer("count", 1);
    pool.min = integer("min", 0);
    pool.max = integer("max", pool.count);
    pool.provision_delay_given = p.contains("provision_delay");
    if (pool.provision_delay_given) {
      const nlohmann::json& delay = p["provision_delay"];
      pool.provision_delay =
          data::parse_duration(delay.is_string() ? delay.get<std::string>() : delay.dump(), where + ": provision_delay");
    }
    auto text = [](const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); };
    read_optional_fields(pool, [&](const char* key) { return p.contains(key) ? text(p[key]) : std::string(); },
                         where);
    pool.declared_at = where;
    if (p.contains("capacity")) {
      if (!p["capacity"].is_object()) throw data::Error(where, "capacity must be an object of quantities");
      for (const auto& [name, value] : p["capacity"].items()) {
        pool.capacity[name] = data::parse_quantity_milli(text(value), where + ": capacity." + name);
      }
    }
    check_node_pools({pool}, where);
    pools.push_back(std::move(pool));
  });
  const std::string top = input.where(1);
  if (doc.is_object()) {
    if (!doc.contains("pools")) throw data::Error(top, "expected an array of pools or {\"pools\": [...]}");
    for (const auto& [key, value] : doc.items()) {
      if (key != "pools") throw data::Error(top, "unknown key " + data::excerpt(key) + " (known: pools)");
    }
    if (!doc.at("pools").is_array()) throw data::Error(top, "expected an array of pools or {\"pools\": [...]}");
  } else if (!doc.is_array()) {
    throw data::Error(top, "expected an array of pools or {\"pools\": [...]}");
  }
  return pools;
}

}  // namespace

Placement placement_named(const std::string& name, const std::string& where) {
  return placements().find(name, where);
}

const char* to_string(Placement placement) { return placements().name_of(placement); }

Expander expander_named(const std::string& name, const std::string& where) { return expanders().find(name, where); }

const char* to_string(Expander expander) { return expanders().name_of(expander); }

void check_node_pools(const std::vector<NodePool>& pools, const std::string& where) {
  std::set<std::string> names;
  std::int64_t declared = 0;
  for (const NodePool& pool : pools) {
    const std::string label = "pool '" + pool.name + "'";
    if (pool.name.empty()) throw data::Error(where, "a pool needs a name");
    if (!names.insert(pool.name).second) throw data::Error(where, label + " is declared twice");
    if (pool.max < 1 || pool.min < 0 || pool.min > pool.count || pool.count > pool.max) {
      throw data::Error(where, label + " needs 0 <= min <= count <= max and max >= 1 (has count " +
                                   std::to_string(pool.count) + ", min " + std::to_string(pool.min) + ", max " +
                                   std::to_string(pool.max) + ")");
    }
    if (pool.capacity.empty()) throw data::Error(where, label + " has no capacity (columns capacity.NAME)");
    declared += pool.max;
  }
  if (pools.empty()) throw data::Error(where, "no node pool declared");
  for (const NodePool& pool : pools) {
    if (pool.price.has_value() != pools.front().price.has_value()) {
      const NodePool& unpriced = pool.price ? pools.front() : pool;
      throw data::Error(where, "pool '" + unpriced.name + "' has no price while others have one: price every pool or none");
    }
  }
  // Nodes are counted, not built (sim/pool_nodes.h), but numbered in 32 bits.
  if (declared > std::numeric_limits<int>::max()) {
    throw data::Error(where, "the pools declare " + std::to_string(declared) + " nodes in all (their max), more than " +
                                 std::to_string(std::numeric_limits<int>::max()) + " node numbers");
  }
}

std::vector<NodePool> read_node_pools(const std::string& path) {
  const bool json = data::importers::looks_like_json(path);
  std::vector<NodePool> pools = json ? read_json(path) : read_csv(path);
  check_node_pools(pools, path);
  return pools;
}

namespace {

// The check of check_fits_a_pool over `count` items (or request sets), item i asking for requests(i).
template <typename RequestsOf, typename Id>
void check_fits(std::size_t count, RequestsOf requests, Id id, const std::vector<NodePool>& pools) {
  const data::Quantities* fitting = nullptr;  // the last requests that fit
  for (std::size_t i = 0; i < count; ++i) {
    const data::Quantities& asked = requests(i);
    if (fitting != nullptr && asked == *fitting) continue;  // as the item before asked
    std::string capacities, shortages;
    for (const NodePool& pool : pools) {
      const std::string short_of = data::short_resource(asked, pool.capacity);
      if (short_of.empty()) {
        shortages.clear();
        break;
      }
      capacities += (capacities.empty() ? "" : "; ") + pool.name + ": " + data::quantities_text(pool.capacity);
      shortages += (shortages.empty() ? "" : ", ") + short_of + " on " + pool.name;
    }
    if (shortages.empty()) {
      fitting = &asked;
      continue;
    }
    throw data::Error("item '" + id(i) + "'", "requests " + data::quantities_text(asked) +
                                                ", more than any node pool's machine has (" + capacities +
                                                "): it could never start (short: " + shortages + ")");
  }
}

}  // namespace

void check_fits_a_pool(const std::vector<data::WorkItem>& items, const std::vector<NodePool>& pools) {
  check_fits(
      items.size(), [&](std::size_t i) -> const auto& { return items[i].requests; },
      [&](std::size_t i) { return items[i].id; }, pools);
}

void check_fits_a_pool(const scheduler::PlannedWork& plan, const std::vector<NodePool>& pools) {
  check_fits(
      plan.asked_set_count(), [&](std::size_t k) -> const auto& { return plan.requests(plan.first_asking(k)); },
      [&](std::size_t k) { return plan.id(plan.first_asking(k)); }, pools);
}

}  // namespace millrace::sim
