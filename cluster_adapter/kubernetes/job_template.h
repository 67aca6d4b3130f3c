// The batch/v1 Job a Kubernetes run creates for one attempt, made from a user-supplied Job
// manifest (JSON). Rendering makes the Job one attempt of one item and nothing more:
//  - a deterministic name from (run, item, attempt), so a create retried after a timeout meets
//    409 AlreadyExists for the very Job it already made;
//  - labels millrace.io/run, millrace.io/item, millrace.io/attempt on the Job and its pods (plus
//    millrace.io/job on the pods), annotations with the exact item id and attempt;
//  - retries belong to the scheduler: backoffLimit 0, restartPolicy Never, and the attempt's
//    activeDeadlineSeconds when one is given;
//  - the item's parameters as env vars in every container (MILLRACE_FIRST, MILLRACE_COUNT,
//    MILLRACE_LAST, MILLRACE_END (exclusive), MILLRACE_END_COUNT, MILLRACE_ITEM,
//    MILLRACE_ATTEMPT, MILLRACE_RUN, MILLRACE_TYPE, MILLRACE_PAYLOAD) and as placeholders in
//    each container's command and args strings: {first} {count} {last} {end} {end_count} {id}
//    {attempt} {payload} {type} (realtime/attempt_values.h, as the local command template; "{{" is
//    a brace);
//  - the item's resource requests (job-per-item) in the first container's resources.requests,
//    as quantities, each replacing the template's request of that resource (the template's
//    other requests and its limits stay).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "scheduler/cluster.h"

namespace millrace::cluster_adapter {

inline constexpr const char* kRunLabel = "millrace.io/run";
inline constexpr const char* kItemLabel = "millrace.io/item";
inline constexpr const char* kAttemptLabel = "millrace.io/attempt";
inline constexpr const char* kJobLabel = "millrace.io/job";
inline constexpr const char* kItemAnnotation = "millrace.io/item-id";
inline constexpr const char* kHandleAnnotation = "millrace.io/handle";
inline constexpr const char* kPoolLabel = "millrace.io/pool";

// `text` made a valid DNS label / label value of at most `max` characters: lower-cased, other
// characters turned into '-', and when anything had to change, a hash of the original appended
// so distinct inputs stay distinct.
std::string dns_label(const std::string& text, std::size_t max = 63);

// The Job name of an attempt: the same (run, item id, attempt) always gives the same name.
std::string job_name(const std::string& run, const std::string& item_id, int attempt);
// The name of a run's worker-pool Job.
std::string pool_job_name(const std::string& run);

class JobTemplate {
 public:
  // Parses a Job manifest; throws data::Error naming `origin` when it is not a JSON batch/v1
  // Job with at least one container, or uses an unknown placeholder.
  static JobTemplate parse(const std::string& text, const std::string& origin);
  static JobTemplate load(const std::string& path);

  // The Job for one attempt of `submission` in `run`, in namespace `ns`. Throws data::Error
  // naming the item when the template uses range placeholders and the item has no range.
  nlohmann::json render(const std::string& run, const std::string& ns,
                        const scheduler::Submission& submission,
                        std::optional<int> active_deadline_seconds) const;

  // The worker pool's one Indexed Job (worker-pool mode): named pool_job_name(run),
  // completionMode Indexed with `workers` completions and parallelism (one long-lived pod per
  // index, which Kubernetes tells its JOB_COMPLETION_INDEX), labels millrace.io/run and
  // millrace.io/pool on the Job and its pods, restartPolicy OnFailure (a crashed worker restarts
  // in its pod and asks for work again), and MILLRACE_RUN, MILLRACE_LEASE_URL and
  // MILLRACE_WORKERS in every container, and MILLRACE_LEASE_TOKEN when `lease_token` is not
  // empty (what the lease API requires of the workers). Throws data::Error naming the template
  // when a command or argument uses a placeholder: pool workers get their items from the lease API.
  nlohmann::json render_pool(const std::string& run, const std::string& ns, int workers,
                             const std::string& lease_url, const std::string& lease_token = "") const;

  // The manifest as parsed, to keep it with a run (a resume renders the very same Jobs).
  const nlohmann::json& manifest() const { return manifest_; }

 private:
  JobTemplate(nlohmann::json manifest, std::string origin)
      : manifest_(std::move(manifest)), origin_(std::move(origin)) {}
  nlohmann::json manifest_;
  std::string origin_;
};

// The MILLRACE_LEASE_TOKEN a pool Job gives its first container (render_pool), read from the
// Job as the API returns it; empty when it has none.
std::string pool_lease_token(const nlohmann::json& job);

}  // namespace millrace::cluster_adapter
