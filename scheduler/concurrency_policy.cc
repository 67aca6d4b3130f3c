#include "scheduler/concurrency_policy.h"

#include "data/error.h"
#include "scheduler/job_per_item_policy.h"
#include "scheduler/worker_pool_policy.h"

namespace millrace::scheduler {

namespace {

std::map<std::string, PolicyFactory>& registry() {
  static std::map<std::string, PolicyFactory> policies{
      {"fixed-pool",
       [](const PolicyParams& p) { return std::make_unique<WorkerPoolPolicy>(WorkerPoolPolicy::Sizing::kFixed, p); }},
      {"partial",
       [](const PolicyParams& p) { return std::make_unique<WorkerPoolPolicy>(WorkerPoolPolicy::Sizing::kPartial, p); }},
      {"autoscale",
       [](const PolicyParams& p) {
         return std::make_unique<WorkerPoolPolicy>(WorkerPoolPolicy::Sizing::kAutoscale, p);
       }},
      {"job-per-item", [](const PolicyParams& p) { return std::make_unique<JobPerItemPolicy>(p); }},
  };
  return policies;
}

}  // namespace

void register_policy(const std::string& name, PolicyFactory factory) { registry()[name] = std::move(factory); }

std::unique_ptr<ConcurrencyPolicy> make_policy(const std::string& name, const PolicyParams& params) {
  auto found = registry().find(name);
  if (found == registry().end()) {
    std::string known;
    for (const std::string& n : policy_names()) known += (known.empty() ? "" : ", ") + n;
    throw data::Error("policy '" + name + "'", "unknown concurrency policy (known: " + known + ")");
  }
  if (params.workers < 1 || params.max_in_flight < 1 || params.min_workers < 0 ||
      params.min_workers > params.workers || params.deadline < 0 || params.scale_up_delay < 0) {
    throw data::Error("policy '" + name + "'",
                      "parameters out of range (workers >= 1, 0 <= min workers <= workers, max in flight >= 1, "
                      "deadline and scale-up delay >= 0)");
  }
  for (const auto& [type, limit] : params.type_limits) {
    if (limit < 1) throw data::Error("policy '" + name + "'", "limit of type '" + type + "' must be >= 1");
  }
  return found->second(params);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;
}

}  // namespace millrace::scheduler
