#include "sim/replica_result.h"

#include <cmath>
#include <limits>
#include <set>

#include "data/error.h"

namespace millrace::sim {

namespace {

using nlohmann::json;

// The fields of one JSON object read one by one; finish() refuses any field not read.
class Fields {
 public:
  Fields(const json& object, std::string where) : object_(object), where_(std::move(where)) {
    if (!object_.is_object()) throw data::Error(where_, "must be a JSON object");
  }
  const json& at(const char* key) {
    auto it = object_.find(key);
    if (it == object_.end()) throw data::Error(where_ + "." + key, "missing");
    read_.insert(key);
    return *it;
  }
  bool has(const char* key) const { return object_.contains(key); }
  std::int64_t count(const char* key) {
    const json& value = at(key);
    if (!value.is_number_integer() || (value.is_number_unsigned() && value.get<std::uint64_t>() >
                                                                          static_cast<std::uint64_t>(kMaxInt)) ||
        value.get<std::int64_t>() < 0) {
      throw data::Error(where_ + "." + key, "must be an integer from 0 to " + std::to_string(kMaxInt));
    }
    return value.get<std::int64_t>();
  }
  double real(const char* key) {
    const json& value = at(key);
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
      throw data::Error(where_ + "." + key, "must be a finite number >= 0");
    }
    return value.get<double>();
  }
  bool flag(const char* key) {
    const json& value = at(key);
    if (!value.is_boolean()) throw data::Error(where_ + "." + key, "must be true or false");
    return value.get<bool>();
  }
  std::string text(const char* key, std::size_t longest) {
    const json& value = at(key);
    if (!value.is_string() || value.get<std::string>().size() > longest) {
      throw data::Error(where_ + "." + key, "must be a string of at most " + std::to_string(longest) + " characters");
    }
    return value.get<std::string>();
  }
  const std::string& where() const { return where_; }
  void finish() const {
    for (const auto& [key, value] : object_.items()) {
      if (!read_.count(key)) throw data::Error(where_ + "." + key, "is not a field of a replica's result");
    }
  }

 private:
  static constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
  const json& object_;
  std::string where_;
  std::set<std::string> read_;
};

constexpr std::size_t kMaxCurrency = 16;

data::WaitSummary waits_of(const json& object, const std::string& where) {
  Fields f(object, where);
  data::WaitSummary w;
  w.items = static_cast<std::size_t>(f.count("items"));
  w.p50 = f.count("p50_us");
  w.p90 = f.count("p90_us");
  w.p99 = f.count("p99_us");
  w.max = f.count("max_us");
  w.mean_pending = f.real("mean_pending");
  f.finish();
  return w;
}

RunCost cost_of(const json& object, const std::string& where) {
  Fields f(object, where);
  RunCost cost;
  cost.total.millionths = f.count("total_millionths");
  cost.currency = f.text("currency", kMaxCurrency);
  f.finish();
  return cost;
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
    if (r.cost) one["cost"] = {{"total_millionths", r.cost->total.millionths}, {"currency", r.cost->currency}};
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
    Fields f(results[i], input + "[" + std::to_string(i) + "]");
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
    f.finish();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace millrace::sim
