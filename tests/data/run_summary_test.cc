#include "data/run_summary.h"

#include <gtest/gtest.h>

namespace millrace::data {
namespace {

constexpr Micros kS = kMicrosPerSecond;

WorkItem item(const std::string& id) {
  WorkItem w;
  w.id = id;
  return w;
}

Attempt attempt(const std::string& item, const std::string& worker, Micros start, Micros end,
                Outcome outcome = Outcome::kSucceeded) {
  Attempt a;
  a.item_id = item;
  a.worker = worker;
  a.start = start;
  a.end = end;
  a.outcome = outcome;
  return a;
}

TEST(RunSummary, CountsWorkFailuresWorkerBusyTimeAndTheStragglerTail) {
  std::vector<WorkItem> items = {item("a"), item("b"), item("c"), item("d"), item("e")};
  // Workers 1-9 finish at 10 s; worker 10 runs a straggler until 100 s. Item e fails once.
  std::vector<Attempt> attempts;
  for (int w = 1; w <= 9; ++w) attempts.push_back(attempt("a", std::to_string(w), 0, 10 * kS));
  attempts.push_back(attempt("e", "1", 10 * kS, 12 * kS, Outcome::kFailed));
  attempts.push_back(attempt("b", "10", 0, 100 * kS));
  auto s = summarize(items, attempts, 2);
  EXPECT_EQ(s.items, 5u);
  EXPECT_EQ(s.attempts, 11u);
  EXPECT_EQ(s.failed_attempts, 1u);
  EXPECT_EQ(s.items_without_success, 3u);  // c, d never ran; e failed
  EXPECT_EQ(s.total_work, (9 * 10 + 2 + 100) * kS);
  EXPECT_EQ(s.makespan, 100 * kS);
  ASSERT_EQ(s.longest.size(), 2u);
  EXPECT_EQ(s.longest[0].item_id, "b");
  EXPECT_EQ(s.workers, 10u);
  EXPECT_EQ(s.busy_min, 10 * kS);
  EXPECT_EQ(s.busy_median, 10 * kS);
  EXPECT_EQ(s.busy_max, 100 * kS);
  EXPECT_EQ(s.half_idle_at, 10 * kS);
  EXPECT_EQ(s.most_idle_at, 12 * kS);  // the 9th of 10 workers is worker 1, done at 12 s
  EXPECT_EQ(s.running_when_most_idle, 1u);
  EXPECT_EQ(s.tail(), 88 * kS);
}

TEST(RunSummary, AttemptsWithoutWorkersGiveNoWorkerFigures) {
  auto s = summarize({item("a")}, {attempt("a", "", 5 * kS, 7 * kS)});
  EXPECT_EQ(s.workers, 0u);
  EXPECT_EQ(s.makespan, 2 * kS);
}

TEST(RunSummary, AnEmptyRunHasOnlyItsItems) {
  auto s = summarize({item("a")}, {});
  EXPECT_EQ(s.items, 1u);
  EXPECT_EQ(s.items_without_success, 1u);
  EXPECT_EQ(s.makespan, 0);
}

}  // namespace
}  // namespace millrace::data
