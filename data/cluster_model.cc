#include "data/cluster_model.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "data/checked_numbers.h"
#include "data/error.h"

namespace millrace::data {

namespace {

using Json = nlohmann::json;

const Json& member(const Json& object, const char* key, const std::string& where, const std::string& input) {
  if (!object.is_object()) throw Error(input, where + ": must be a JSON object");
  if (!object.contains(key)) throw Error(input, where + "." + key + ": missing");
  return object.at(key);
}

std::string text_of(const Json& object, const char* key, const std::string& where, const std::string& input) {
  const Json& value = member(object, key, where, input);
  if (!value.is_string()) throw Error(input, where + "." + key + ": must be a string, not " + value.dump());
  return value.get<std::string>();
}

std::size_t count_of(const Json& object, const char* key, const std::string& where, const std::string& input) {
  const Json& value = member(object, key, where, input);
  if (!value.is_number_unsigned()) throw Error(input, where + "." + key + ": must be a whole number from 0, not " + value.dump());
  return value.get<std::size_t>();
}

Json delays_json(const TypedDelays& d) {
  Json by_type = Json::object();
  for (const auto& [type, q] : d.by_type) by_type[type] = q.to_json("quantiles_us");
  return {{"pooled", d.pooled.to_json("quantiles_us")}, {"by_type", by_type}, {"unidentified", d.unidentified}};
}

// A delay's quantiles, each at most what the simulator's clock holds.
EmpiricalQuantiles delay_quantiles(const Json& json, const std::string& where, const std::string& input) {
  return EmpiricalQuantiles::from_json(json, "quantiles_us", static_cast<double>(kMaxMicros), kMaxMicrosText, where,
                                       input);
}

TypedDelays delays_of(const Json& json, const std::string& where, const std::string& input) {
  TypedDelays d;
  d.pooled = delay_quantiles(member(json, "pooled", where, input), where + ".pooled", input);
  const Json& by_type = member(json, "by_type", where, input);
  if (!by_type.is_object()) throw Error(input, where + ".by_type: must be a JSON object of item types");
  for (const auto& [type, q] : by_type.items()) {
    d.by_type[type] = delay_quantiles(q, where + ".by_type." + type, input);
  }
  d.unidentified = text_of(json, "unidentified", where, input);
  return d;
}

Json type_failures_json(const TypeFailures& f) {
  Json modes = Json::array();
  for (const FailureMode& m : f.modes) {
    modes.push_back({{"reason", m.reason},
                     {"exit_code", m.exit_code},
                     {"failures", m.failures},
                     {"probability", m.probability},
                     {"timing", m.timing.to_json("fractions")}});
  }
  return {{"attempts", f.attempts}, {"reasons", modes}};
}

TypeFailures type_failures_of(const Json& json, const std::string& where, const std::string& input) {
  TypeFailures f;
  f.attempts = count_of(json, "attempts", where, input);
  const Json& modes = member(json, "reasons", where, input);
  if (!modes.is_array()) throw Error(input, where + ".reasons: must be an array");
  for (std::size_t i = 0; i < modes.size(); ++i) {
    const std::string at = where + ".reasons[" + std::to_string(i) + "]";
    FailureMode m;
    m.reason = text_of(modes[i], "reason", at, input);
    const Json& code = member(modes[i], "exit_code", at, input);
    if (!code.is_number_integer()) throw Error(input, at + ".exit_code: must be a whole number, not " + code.dump());
    m.exit_code = code.get<int>();
    m.failures = count_of(modes[i], "failures", at, input);
    const Json& p = member(modes[i], "probability", at, input);
    if (!p.is_number() || !(p.get<double>() >= 0 && p.get<double>() <= 1)) {
      throw Error(input, at + ".probability: must be a number in [0, 1], not " + p.dump());
    }
    m.probability = p.get<double>();
    m.timing = EmpiricalQuantiles::from_json(member(modes[i], "timing", at, input), "fractions", 1, "1 (the whole attempt)",
                                             at + ".timing", input);
    f.modes.push_back(std::move(m));
  }
  double total = 0;
  for (const FailureMode& m : f.modes) total += m.probability;
  if (total > 1 + 1e-9) throw Error(input, where + ".reasons: the probabilities add up to more than 1");
  return f;
}

Json interruptions_json(const PoolInterruptions& p) {
  return {{"nodes", p.nodes}, {"departures", p.departures}, {"node_hours", p.node_hours},
          {"rate_per_node_hour", p.rate}, {"low", p.low}, {"high", p.high}};
}

Json spot_json(const SpotInterruptions& s) {
  Json by_pool = Json::object();
  for (const auto& [pool, p] : s.by_pool) by_pool[pool] = interruptions_json(p);
  return {{"pooled", interruptions_json(s.pooled)}, {"by_pool", by_pool}, {"unidentified", s.unidentified}};
}

double rate_figure(const Json& json, const char* key, const std::string& where, const std::string& input) {
  const Json& value = member(json, key, where, input);
  if (!value.is_number() || !(value.get<double>() >= 0) || !std::isfinite(value.get<double>())) {
    throw Error(input, where + "." + key + ": must be a finite number from 0, not " + value.dump());
  }
  return value.get<double>();
}

PoolInterruptions pool_interruptions_of(const Json& json, const std::string& where, const std::string& input) {
  PoolInterruptions p;
  p.nodes = count_of(json, "nodes", where, input);
  p.departures = count_of(json, "departures", where, input);
  p.node_hours = rate_figure(json, "node_hours", where, input);
  p.rate = rate_figure(json, "rate_per_node_hour", where, input);
  p.low = rate_figure(json, "low", where, input);
  p.high = rate_figure(json, "high", where, input);
  if (p.departures > p.nodes) throw Error(input, where + ": more departures than nodes");
  if (!(p.low <= p.rate && p.rate <= p.high)) throw Error(input, where + ": the rate lies outside its interval");
  return p;
}

SpotInterruptions interruptions_of(const Json& json, const std::string& where, const std::string& input) {
  SpotInterruptions s;
  s.pooled = pool_interruptions_of(member(json, "pooled", where, input), where + ".pooled", input);
  const Json& by_pool = member(json, "by_pool", where, input);
  if (!by_pool.is_object()) throw Error(input, where + ".by_pool: must be a JSON object of node pools");
  for (const auto& [pool, p] : by_pool.items()) s.by_pool[pool] = pool_interruptions_of(p, where + ".by_pool." + pool, input);
  s.unidentified = text_of(json, "unidentified", where, input);
  return s;
}

}  // namespace

std::optional<double> SpotInterruptions::rate_of(const std::string& pool) const {
  if (!identified()) return std::nullopt;
  auto found = by_pool.find(pool);
  return found == by_pool.end() ? pooled.rate : found->second.rate;
}

const EmpiricalQuantiles& TypedDelays::of_type(const std::string& type) const {
  if (by_type.empty()) return pooled;
  auto found = by_type.find(type);
  return found == by_type.end() ? pooled : found->second;
}

Micros TypedDelays::draw(const std::string& type, double u) const { return saturated_micros(of_type(type).draw(u)); }

const TypeFailures& FittedFailures::of_type(const std::string& type) const {
  if (by_type.empty()) return pooled;
  auto found = by_type.find(type);
  return found == by_type.end() ? pooled : found->second;
}

nlohmann::json ClusterModel::to_json() const {
  Json by_type = Json::object();
  for (const auto& [type, f] : failures.by_type) by_type[type] = type_failures_json(f);
  return {{"source", source},
          {"capacity", capacity},
          {"placement_residual", delays_json(placement)},
          {"startup", delays_json(startup)},
          {"failures", {{"pooled", type_failures_json(failures.pooled)},
                        {"by_type", by_type},
                        {"unidentified", failures.unidentified}}},
          {"worker_gap", delays_json(worker_gap)},
          {"job_overhead", delays_json(job_overhead)},
          {"provisioning", delays_json(provisioning)},
          {"interruptions", spot_json(interruptions)}};
}

ClusterModel ClusterModel::from_json(const nlohmann::json& json, const std::string& input) {
  const std::string where = "cluster";
  ClusterModel m;
  m.source = text_of(json, "source", where, input);
  m.capacity = text_of(json, "capacity", where, input);
  m.placement = delays_of(member(json, "placement_residual", where, input), where + ".placement_residual", input);
  m.startup = delays_of(member(json, "startup", where, input), where + ".startup", input);
  const Json& failures = member(json, "failures", where, input);
  m.failures.pooled = type_failures_of(member(failures, "pooled", where + ".failures", input), where + ".failures.pooled", input);
  const Json& by_type = member(failures, "by_type", where + ".failures", input);
  if (!by_type.is_object()) throw Error(input, where + ".failures.by_type: must be a JSON object of item types");
  for (const auto& [type, f] : by_type.items()) {
    m.failures.by_type[type] = type_failures_of(f, where + ".failures.by_type." + type, input);
  }
  m.failures.unidentified = text_of(failures, "unidentified", where + ".failures", input);
  m.worker_gap = delays_of(member(json, "worker_gap", where, input), where + ".worker_gap", input);
  m.job_overhead = delays_of(member(json, "job_overhead", where, input), where + ".job_overhead", input);
  m.provisioning = delays_of(member(json, "provisioning", where, input), where + ".provisioning", input);
  if (json.contains("interruptions")) {
    m.interruptions = interruptions_of(json.at("interruptions"), where + ".interruptions", input);
  } else {
    m.interruptions.unidentified = "not fitted (a model file from before spot interruptions were)";
  }
  return m;
}

}  // namespace millrace::data
