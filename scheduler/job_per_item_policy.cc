#include "scheduler/job_per_item_policy.h"

namespace millrace::scheduler {

JobPerItemPolicy::JobPerItemPolicy(const PolicyParams& params) : params_(params) {}

bool JobPerItemPolicy::admits(const std::string& type) const {
  if (in_flight_ >= params_.max_in_flight) return false;
  if (params_.type_limits.empty()) return true;
  auto limit = params_.type_limits.find(type);
  if (limit == params_.type_limits.end()) return true;
  auto count = per_type_.find(type);
  return count == per_type_.end() || count->second < limit->second;
}

// Without type limits (the usual case) an attempt only counts towards K: no lookup of its type.
int JobPerItemPolicy::acquire(const std::string& type) {
  ++in_flight_;
  if (!params_.type_limits.empty() && params_.type_limits.count(type) != 0) ++per_type_[type];
  return kNoLane;
}

void JobPerItemPolicy::release(const std::string& type, int) {
  --in_flight_;
  if (!params_.type_limits.empty() && params_.type_limits.count(type) != 0) --per_type_[type];
}

}  // namespace millrace::scheduler
