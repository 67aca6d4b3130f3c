#include "scheduler/job_per_item_policy.h"

namespace millrace::scheduler {

JobPerItemPolicy::JobPerItemPolicy(const PolicyParams& params) : ConcurrencyPolicy(params.max_in_flight), params_(params) {
  if (!params_.type_limits.empty()) limits_types();
}

bool JobPerItemPolicy::admits_type(const std::string& type) const {
  if (saturated()) return false;
  auto limit = params_.type_limits.find(type);
  if (limit == params_.type_limits.end()) return true;
  auto count = per_type_.find(type);
  return count == per_type_.end() || count->second < limit->second;
}

void JobPerItemPolicy::count_type(const std::string& type, int delta) {
  if (params_.type_limits.count(type) != 0) per_type_[type] += delta;
}

}  // namespace millrace::scheduler
