#include "cluster_adapter/realtime/live_status.h"

#include <gtest/gtest.h>

#include "cluster_adapter/realtime/attempt_timeline.h"
#include "tests/support/work_items.h"

namespace millrace::cluster_adapter {
namespace {

using test_support::attempt;

scheduler::StatusReport report() {
  scheduler::StatusReport status;
  status.at = 50;
  status.num_items = 10;
  status.num_remain = 6;
  status.num_succeeded = 2;
  status.jobs_failed = {scheduler::FailedJob{"a", "9/10", "w1", 2, "exit"},
                        scheduler::FailedJob{"b", "19/10", "", 0, "dependency failed"}};
  status.jobs_in_progress = {"29/10", "39/10", "49/10"};
  return status;
}

TEST(LiveStatusTest, ProgressCountsSettledFailedInFlightAndRemainingItems) {
  const scheduler::StatusReport status = report();
  nlohmann::json document = scheduler::to_json(status);
  add_live_figures(document, status, LiveFigures{}, [](const std::string&, int) { return std::vector<std::string>{}; });
  EXPECT_EQ(document["progress"], nlohmann::json({{"total", 10}, {"done", 4}, {"succeeded", 2}, {"failed", 2},
                                                  {"in_flight", 3}, {"remaining", 6}}));
}

TEST(LiveStatusTest, EtaIsNullWhenUnknownAndItsBandOtherwise) {
  const scheduler::StatusReport status = report();
  const auto no_logs = [](const std::string&, int) { return std::vector<std::string>{}; };
  nlohmann::json unknown = scheduler::to_json(status);
  add_live_figures(unknown, status, LiveFigures{std::nullopt, 3, 0, nlohmann::json::array()}, no_logs);
  EXPECT_TRUE(unknown["eta"]["expected_us"].is_null());
  EXPECT_TRUE(unknown["eta"]["p10_us"].is_null());
  EXPECT_EQ(unknown["eta"]["slots"], 3);
  nlohmann::json known = scheduler::to_json(status);
  add_live_figures(known, status, LiveFigures{EtaBand{100, 80, 130, 12, 0.1, true}, 2, 200, nlohmann::json::array()},
                   no_logs);
  EXPECT_EQ(known["eta"], nlohmann::json({{"slots", 2},
                                          {"remaining_predicted_us", 200},
                                          {"expected_us", 100},
                                          {"p10_us", 80},
                                          {"p90_us", 130},
                                          {"observed", 12},
                                          {"run_ratio", 0.1},
                                          {"outside_model", true},
                                          {"note", "ranges run 0.10x the model"}}));
}

TEST(LiveStatusTest, FailedItemsNameTheLogsOfTheirLastAttemptAndBlockedOnesNone) {
  const scheduler::StatusReport status = report();
  nlohmann::json document = scheduler::to_json(status);
  add_live_figures(document, status, LiveFigures{}, [](const std::string& item, int number) {
    return std::vector<std::string>{"/logs/" + item + "." + std::to_string(number) + ".out"};
  });
  EXPECT_EQ(document["jobs_failed"][0]["logs"], nlohmann::json({"/logs/a.2.out"}));
  EXPECT_EQ(document["jobs_failed"][1]["logs"], nlohmann::json::array());
}

TEST(AttemptTimelineTest, AFinishedAttemptReplacesItsRunningEntry) {
  AttemptTimeline timeline;
  timeline.observe(attempt("a", 1, "w0", data::Outcome::kRunning, 10, 10));
  timeline.observe(attempt("b", 1, "w1", data::Outcome::kRunning, 12, 12));
  timeline.observe(attempt("a", 1, "w0", data::Outcome::kFailed, 10, 20, "exit"));
  const nlohmann::json json = timeline.to_json();
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["worker"], "w0");
  ASSERT_EQ(json[0]["attempts"].size(), 1u);
  EXPECT_EQ(json[0]["attempts"][0], nlohmann::json({{"item", "a"}, {"attempt", 1}, {"start_us", 10}, {"end_us", 20},
                                                    {"outcome", "failed"}, {"exit_code", 3}, {"reason", "exit"}}));
  EXPECT_TRUE(json[1]["attempts"][0]["end_us"].is_null());
  EXPECT_EQ(json[1]["attempts"][0]["outcome"], "running");
}

TEST(AttemptTimelineTest, DroppingARunningAttemptLeavesFinishedOnesAndEmptyWorkersGo) {
  AttemptTimeline timeline;
  timeline.observe(attempt("a", 1, "w0", data::Outcome::kSucceeded, 0, 5));
  timeline.observe(attempt("a", 1, "w1", data::Outcome::kRunning, 6, 6));
  timeline.drop_running("w0", "a", 1);
  timeline.drop_running("w1", "a", 1);
  const nlohmann::json json = timeline.to_json();
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["worker"], "w0");
  EXPECT_EQ(json[0]["attempts"].size(), 1u);
}

TEST(AttemptTimelineTest, EachWorkerKeepsItsLatestAttemptsOnly) {
  AttemptTimeline timeline(3);
  for (int i = 0; i < 5; ++i) {
    timeline.observe(attempt("r" + std::to_string(i), 1, "w0", data::Outcome::kSucceeded, i * 10, i * 10 + 5));
  }
  const nlohmann::json attempts = timeline.to_json()[0]["attempts"];
  ASSERT_EQ(attempts.size(), 3u);
  EXPECT_EQ(attempts[0]["item"], "r2");
  EXPECT_EQ(attempts[2]["item"], "r4");
}

}  // namespace
}  // namespace millrace::cluster_adapter
