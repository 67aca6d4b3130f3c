// The fields of a JSON object another process sent (a sweep shard's lease payload, a worker's
// replica results: sim/sweep_shards.h, sim/replica_result.h), read one by one and checked as
// they are read: every problem is a data::Error naming the input and the field
// ("results[3].waits.p90_us: missing") and what is wrong, never an exception of nlohmann's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace millrace::sim {

class JsonFields {
 public:
  // Throws unless `object` is a JSON object.
  JsonFields(const nlohmann::json& object, std::string where);

  // The field `key` ("missing" when absent); marks it read.
  const nlohmann::json& at(const char* key);
  bool has(const char* key) const { return object_.contains(key); }
  // An integer in [min, max].
  std::int64_t integer(const char* key, std::int64_t min, std::int64_t max);
  // An integer in [0, int64 max].
  std::int64_t count(const char* key);
  // A finite number >= 0.
  double real(const char* key);
  bool flag(const char* key);
  // A string of at most `longest` characters.
  std::string text(const char* key, std::size_t longest);
  // An array of at most `most` non-empty strings.
  std::vector<std::string> names(const char* key, std::size_t most);

  const std::string& where() const { return where_; }
  // Throws for a field never read: "where.key: is not a field of `what`".
  void finish(const std::string& what) const;

 private:
  const nlohmann::json& object_;
  std::string where_;
  std::set<std::string> read_;
};

}  // namespace millrace::sim
