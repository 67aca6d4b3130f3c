#include "cluster_adapter/kubernetes/job_view.h"

#include <cctype>
#include <cstdio>
#include <ctime>

#include "cluster_adapter/kubernetes/json_fields.h"

namespace millrace::cluster_adapter {

namespace {

using nlohmann::json;

std::string failure_reason(const std::string& condition_reason) {
  if (condition_reason == "DeadlineExceeded") return "timeout";
  if (condition_reason.empty() || condition_reason == "BackoffLimitExceeded") return "exit";
  std::string out;
  for (unsigned char c : condition_reason) out += static_cast<char>(std::tolower(c));
  return out;
}

std::int64_t number(const json& status, const char* key) { return integer_field(status, key).value_or(0); }

}  // namespace

std::optional<std::int64_t> parse_rfc3339(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::int64_t seconds = timegm(&tm);
  std::size_t i = static_cast<std::size_t>(consumed);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int hours = 0, minutes = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &hours, &minutes) != 2) return std::nullopt;
    std::int64_t offset = hours * 3600 + minutes * 60;
    seconds += text[i] == '+' ? -offset : offset;
  } else if (i >= text.size() || (text[i] != 'Z' && text[i] != 'z')) {
    return std::nullopt;
  }
  return seconds;
}

JobView view_job(const json& job) {
  JobView view;
  const json& meta = object_field(job, "metadata");
  view.name = text_field(meta, "name");
  view.deleting = !field(meta, "deletionTimestamp").is_null();
  const json& status = object_field(job, "status");
  const json& spec = object_field(job, "spec");

  for (const auto& c : array_field(status, "conditions")) {
    if (text_field(c, "status") != "True") continue;
    std::string type = text_field(c, "type");
    auto at = parse_rfc3339(text_field(c, "lastTransitionTime"));
    if (type == "Complete" || type == "SuccessCriteriaMet") {
      view.phase = JobPhase::kSucceeded;
      view.finished = parse_rfc3339(text_field(status, "completionTime")).value_or(at.value_or(0));
      if (type == "Complete") break;
    } else if (type == "Failed" || type == "FailureTarget") {
      view.phase = JobPhase::kFailed;
      view.failure_reason = failure_reason(text_field(c, "reason"));
      view.finished = at;
      if (type == "Failed") break;
    }
  }
  if (view.terminal()) return view;

  std::int64_t completions = integer_field(spec, "completions").value_or(1);
  std::int64_t backoff_limit = integer_field(spec, "backoffLimit").value_or(6);
  if (number(status, "succeeded") >= completions) {
    view.phase = JobPhase::kSucceeded;
    view.finished = parse_rfc3339(text_field(status, "completionTime"));
  } else if (number(status, "failed") > backoff_limit) {
    view.phase = JobPhase::kFailed;
    view.failure_reason = "exit";
  } else if (number(status, "active") > 0 && number(status, "ready") > 0) {
    view.phase = JobPhase::kRunning;
  }
  return view;
}

PodView view_pod(const json& pod) {
  const json& status = object_field(pod, "status");
  PodView view{name_of(pod), text_field(status, "phase"), "", std::nullopt, std::nullopt, std::nullopt,
               text_field(object_field(pod, "spec"), "nodeName")};
  for (const auto& condition : array_field(status, "conditions")) {
    if (text_field(condition, "type") != "PodScheduled") continue;
    if (text_field(condition, "status") == "False") {
      view.scheduling_problem = text_field(condition, "reason") + ": " + text_field(condition, "message");
      if (text_field(condition, "reason") == "Unschedulable") {
        view.unschedulable_since = parse_rfc3339(text_field(condition, "lastTransitionTime"));
      }
    } else if (text_field(condition, "status") == "True") {
      view.scheduled_at = parse_rfc3339(text_field(condition, "lastTransitionTime"));
    }
    break;
  }
  for (const auto& container : array_field(status, "containerStatuses")) {
    const json& state = object_field(container, "state");
    for (const char* kind : {"running", "terminated"}) {
      const json& told = field(state, kind);
      if (told.is_object()) view.running_since = parse_rfc3339(text_field(told, "startedAt"));
      if (view.running_since) return view;
    }
  }
  return view;
}

}  // namespace millrace::cluster_adapter
