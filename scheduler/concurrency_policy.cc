#include "scheduler/concurrency_policy.h"

#include "data/error.h"
#include "data/registry.h"
#include "scheduler/job_per_item_policy.h"
#include "scheduler/worker_pool_policy.h"

namespace millrace::scheduler {

namespace {

template <WorkerPoolPolicy::Sizing sizing>
std::unique_ptr<ConcurrencyPolicy> worker_pool(const PolicyParams& p) {
  return std::make_unique<WorkerPoolPolicy>(sizing, p);
}

std::unique_ptr<ConcurrencyPolicy> job_per_item(const PolicyParams& p) { return std::make_unique<JobPerItemPolicy>(p); }

// Every policy, in the order help texts list them.
const data::Registry<PolicyFactory>& registry() {
  static const data::Registry<PolicyFactory> policies =
      data::Registry<PolicyFactory>("concurrency policy")
          .add("fixed-pool", worker_pool<WorkerPoolPolicy::Sizing::kFixed>)
          .add("partial", worker_pool<WorkerPoolPolicy::Sizing::kPartial>)
          .add("autoscale", worker_pool<WorkerPoolPolicy::Sizing::kAutoscale>)
          .add("job-per-item", job_per_item);
  return policies;
}

}  // namespace

std::unique_ptr<ConcurrencyPolicy> make_policy(const std::string& name, const PolicyParams& params) {
  const PolicyFactory& factory = registry().find(name, "--policy");
  if (params.workers < 1 || params.max_in_flight < 1 || params.min_workers < 0 ||
      params.min_workers > params.workers || params.deadline < 0 || params.scale_up_delay < 0) {
    throw data::Error("policy '" + name + "'",
                      "parameters out of range (workers >= 1, 0 <= min workers <= workers, max in flight >= 1, "
                      "deadline and scale-up delay >= 0)");
  }
  for (const auto& [type, limit] : params.type_limits) {
    if (limit < 1) throw data::Error("policy '" + name + "'", "limit of type '" + type + "' must be >= 1");
  }
  return factory(params);
}

std::vector<std::string> policy_names() { return registry().names(); }

std::string policy_list() { return registry().known(); }

}  // namespace millrace::scheduler
