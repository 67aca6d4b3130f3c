// What a batch/v1 Job object says about its attempt, read the way the Job controller writes
// it: the Complete / Failed conditions first (also SuccessCriteriaMet / FailureTarget, which
// newer controllers set before the final one), then status.succeeded / status.failed against
// completions and backoffLimit; running when a pod is active and ready. A failed Job has no
// completionTime, so its finishing time is its Failed condition's lastTransitionTime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace millrace::cluster_adapter {

enum class JobPhase { kWaiting, kRunning, kSucceeded, kFailed };

struct JobView {
  std::string name;
  JobPhase phase = JobPhase::kWaiting;
  std::string failure_reason;            // "timeout", "exit", or the condition's reason lower-cased
  std::optional<std::int64_t> finished;  // seconds since the Unix epoch
  bool deleting = false;                 // metadata.deletionTimestamp is set

  bool terminal() const { return phase == JobPhase::kSucceeded || phase == JobPhase::kFailed; }
};

JobView view_job(const nlohmann::json& job);

// What both Kubernetes modes read of a pod.
struct PodView {
  std::string name;
  std::string phase;               // status.phase: Pending, Running, Succeeded, Failed
  std::string scheduling_problem;  // "REASON: message" of its PodScheduled=False condition;
                                   // empty when it is not told to wait for a node
  // Its phases as the server tells them (seconds since the epoch, the server's clock), each
  // empty when not told or malformed: when the scheduler said it fits on no node (PodScheduled
  // False, reason Unschedulable: the condition's lastTransitionTime; gone once it is bound, so a
  // watcher keeps the first it saw), when the PodScheduled condition became True, and when its
  // first container started running; spec.nodeName ("" before it is bound).
  std::optional<std::int64_t> unschedulable_since;
  std::optional<std::int64_t> scheduled_at;
  std::optional<std::int64_t> running_since;
  std::string node;
};

PodView view_pod(const nlohmann::json& pod);

// Seconds since the Unix epoch of an RFC 3339 time ("2026-12-02T14:53:23Z", fractions and
// numeric offsets allowed); empty when it does not parse.
std::optional<std::int64_t> parse_rfc3339(const std::string& text);

}  // namespace millrace::cluster_adapter
