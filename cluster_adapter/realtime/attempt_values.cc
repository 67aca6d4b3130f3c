#include "cluster_adapter/realtime/attempt_values.h"

namespace millrace::cluster_adapter {

namespace {

AttemptValue number(std::string_view name, std::int64_t value) { return {name, std::to_string(value), value}; }

}  // namespace

bool is_range_value(std::string_view name) {
  return name == "first" || name == "count" || name == "last" || name == "end" || name == "end_count";
}

std::vector<AttemptValue> attempt_values(const data::WorkItem& item, int attempt) {
  std::vector<AttemptValue> values;
  if (item.range) {
    const data::Range& r = *item.range;
    values.push_back(number("first", r.first));
    values.push_back(number("count", r.count));
    values.push_back(number("last", r.last()));
    values.push_back(number("end", r.end()));
    values.push_back({"end_count", r.end_count(), std::nullopt});
  }
  values.push_back({"id", item.id, std::nullopt});
  values.push_back(number("attempt", attempt));
  values.push_back({"payload", item.payload, std::nullopt});
  values.push_back({"type", item.type, std::nullopt});
  return values;
}

}  // namespace millrace::cluster_adapter
