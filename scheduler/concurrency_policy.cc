#include "scheduler/concurrency_policy.h"

#include <algorithm>

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

PolicyParams policy_params(int workers, const AutoscaleSettings& autoscale) {
  PolicyParams params;
  params.workers = workers;
  params.max_in_flight = workers;
  params.min_workers = std::min(autoscale.min_workers, workers);
  params.deadline = autoscale.deadline;
  params.scale_up_delay = autoscale.scale_up_delay;
  return params;
}

nlohmann::json to_json(const AutoscaleSettings& a) {
  return {{"min_workers", a.min_workers}, {"deadline_us", a.deadline}, {"scale_up_delay_us", a.scale_up_delay}};
}

AutoscaleSettings autoscale_settings_from(const nlohmann::json& parameters) {
  AutoscaleSettings a;
  a.min_workers = parameters.value("min_workers", a.min_workers);
  a.deadline = parameters.value("deadline_us", a.deadline);
  a.scale_up_delay = parameters.value("scale_up_delay_us", a.scale_up_delay);
  return a;
}

}  // namespace millrace::scheduler
