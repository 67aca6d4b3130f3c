// Reading a Job's status the way the Job controller writes it, and choosing which finished
// Jobs the history limits delete.
#include "cluster_adapter/kubernetes/job_view.h"

#include <gtest/gtest.h>

#include "cluster_adapter/kubernetes/job_history.h"

namespace millrace::cluster_adapter {
namespace {

using nlohmann::json;

json job_with(const json& status, const json& spec = json::object()) {
  return {{"metadata", {{"name", "j"}}}, {"spec", spec}, {"status", status}};
}

TEST(JobView, CompleteConditionIsSuccessAtCompletionTime) {
  JobView v = view_job(job_with({{"succeeded", 1}, {"completionTime", "2026-12-02T10:00:05Z"},
                                 {"conditions", {{{"type", "Complete"}, {"status", "True"},
                                                  {"lastTransitionTime", "2026-12-02T10:00:06Z"}}}}}));
  EXPECT_EQ(v.phase, JobPhase::kSucceeded);
  EXPECT_EQ(v.finished, parse_rfc3339("2026-12-02T10:00:05Z"));
}

TEST(JobView, FailedConditionGivesReasonAndItsTransitionTime) {
  JobView v = view_job(job_with({{"failed", 1}, {"conditions", {{{"type", "Failed"}, {"status", "True"},
                                                                  {"reason", "DeadlineExceeded"},
                                                                  {"lastTransitionTime", "2026-12-02T10:01:00Z"}}}}}));
  EXPECT_EQ(v.phase, JobPhase::kFailed);
  EXPECT_EQ(v.failure_reason, "timeout");
  EXPECT_EQ(v.finished, parse_rfc3339("2026-12-02T10:01:00Z"));
  JobView b = view_job(job_with({{"conditions", {{{"type", "Failed"}, {"status", "True"}, {"reason", "BackoffLimitExceeded"}}}}}));
  EXPECT_EQ(b.failure_reason, "exit");
}

TEST(JobView, NewerTargetConditionsCountAsTheirOutcome) {
  EXPECT_EQ(view_job(job_with({{"conditions", {{{"type", "FailureTarget"}, {"status", "True"}, {"reason", "PodFailurePolicy"}}}}})).failure_reason,
            "podfailurepolicy");
  EXPECT_EQ(view_job(job_with({{"conditions", {{{"type", "SuccessCriteriaMet"}, {"status", "True"}}}}})).phase,
            JobPhase::kSucceeded);
}

TEST(JobView, CountersDecideWithoutConditionsAndFalseConditionsAreIgnored) {
  EXPECT_EQ(view_job(job_with({{"succeeded", 1}}, {{"completions", 1}})).phase, JobPhase::kSucceeded);
  EXPECT_EQ(view_job(job_with({{"failed", 1}}, {{"backoffLimit", 0}})).phase, JobPhase::kFailed);
  EXPECT_EQ(view_job(job_with({{"failed", 1}}, {{"backoffLimit", 2}})).phase, JobPhase::kWaiting);
  EXPECT_EQ(view_job(job_with({{"active", 1}, {"ready", 1}})).phase, JobPhase::kRunning);
  EXPECT_EQ(view_job(job_with({{"active", 1}})).phase, JobPhase::kWaiting);  // pod pending
  EXPECT_EQ(view_job(job_with({{"conditions", {{{"type", "Failed"}, {"status", "False"}}}}})).phase, JobPhase::kWaiting);
}

TEST(Rfc3339, ParsesZuluFractionsAndOffsets) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:01:00Z"), 60);
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:01:00.123456Z"), 60);
  EXPECT_EQ(parse_rfc3339("1970-01-01T01:01:00+01:00"), 60);
  EXPECT_FALSE(parse_rfc3339("yesterday").has_value());
  EXPECT_FALSE(parse_rfc3339("1970-01-01T00:01:00").has_value());
}

TEST(JobHistory, DeletesOldestBeyondEachLimitFailedOrderedByTheirFailureTime) {
  std::vector<FinishedJob> finished = {
      {"s-new", true, 300, 9}, {"s-old", true, 100, 1}, {"s-mid", true, 200, 5},
      {"f-late", false, 250, 7}, {"f-early", false, 50, 8},  // seen late, failed early
  };
  EXPECT_EQ(jobs_beyond_history(finished, 1, 1), (std::vector<std::string>{"f-early", "s-old", "s-mid"}));
  EXPECT_TRUE(jobs_beyond_history(finished, 3, 2).empty());
  EXPECT_EQ(jobs_beyond_history(finished, 0, 5).size(), 3u);
}

TEST(JobHistory, SameSecondIsOrderedByWhenTheRunSawThemFinish) {
  std::vector<FinishedJob> finished = {{"b", true, 100, 2}, {"a", true, 100, 3}, {"c", true, 100, 1}};
  EXPECT_EQ(jobs_beyond_history(finished, 1, 0), (std::vector<std::string>{"c", "b"}));
}

TEST(PodView, TellsTheBindingTheContainersStartAndTheNodeAndLeavesMalformedTimesUnknown) {
  const json pod = json::parse(R"({"metadata": {"name": "p"}, "spec": {"nodeName": "n-3"},
      "status": {"phase": "Running",
                 "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-12-05T10:00:09Z"},
                                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-12-05T10:00:02Z"}],
                 "containerStatuses": [{"state": {"running": {"startedAt": "2026-12-05T10:00:07.5+00:00"}}}]}})");
  const PodView view = view_pod(pod);
  EXPECT_EQ(view.node, "n-3");
  ASSERT_TRUE(view.scheduled_at.has_value());
  ASSERT_TRUE(view.running_since.has_value());
  EXPECT_EQ(*view.running_since - *view.scheduled_at, 5);
  const json odd = json::parse(R"({"spec": {"nodeName": 7},
      "status": {"conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "yesterday"}],
                 "containerStatuses": [{"state": {"terminated": {"startedAt": 20261205}}}, "x"]}})");
  EXPECT_FALSE(view.unschedulable_since.has_value());
  const PodView unknown = view_pod(odd);
  EXPECT_EQ(unknown.node, "");
  EXPECT_FALSE(unknown.scheduled_at.has_value());
  EXPECT_FALSE(unknown.running_since.has_value());
}

TEST(PodView, TellsWhenThePodWasSaidToFitOnNoNodeOnlyForTheUnschedulableReason) {
  const json waiting = json::parse(R"({"status": {"phase": "Pending", "conditions": [{"type": "PodScheduled",
      "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available: 3 Insufficient cpu.",
      "lastTransitionTime": "2026-12-05T10:00:02Z"}]}})");
  const PodView view = view_pod(waiting);
  EXPECT_EQ(view.unschedulable_since, parse_rfc3339("2026-12-05T10:00:02Z"));
  EXPECT_EQ(view.scheduling_problem, "Unschedulable: 0/3 nodes are available: 3 Insufficient cpu.");
  const json gated = json::parse(R"({"status": {"conditions": [{"type": "PodScheduled", "status": "False",
      "reason": "SchedulingGated", "lastTransitionTime": "2026-12-05T10:00:02Z"}]}})");
  EXPECT_FALSE(view_pod(gated).unschedulable_since.has_value());
  const json malformed = json::parse(R"({"status": {"conditions": [{"type": "PodScheduled", "status": "False",
      "reason": "Unschedulable", "lastTransitionTime": ["2026"]}]}})");
  EXPECT_FALSE(view_pod(malformed).unschedulable_since.has_value());
}

}  // namespace
}  // namespace millrace::cluster_adapter
