#include "data/run_summary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

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
  // Workers 1-19 finish at 10 s; worker 20 runs a straggler until 100 s. Item e fails once on
  // worker 1, from 10 to 12 s.
  std::vector<Attempt> attempts;
  for (int w = 1; w <= 19; ++w) attempts.push_back(attempt("a", std::to_string(w), 0, 10 * kS));
  attempts.push_back(attempt("e", "1", 10 * kS, 12 * kS, Outcome::kFailed));
  attempts.push_back(attempt("b", "20", 0, 100 * kS));
  auto s = summarize(items, attempts, 2);
  EXPECT_EQ(s.items, 5u);
  EXPECT_EQ(s.attempts, 21u);
  EXPECT_EQ(s.failed_attempts, 1u);
  EXPECT_EQ(s.items_without_success, 3u);  // c, d never ran; e failed
  EXPECT_EQ(s.total_work, (19 * 10 + 2 + 100) * kS);
  EXPECT_EQ(s.makespan, 100 * kS);
  ASSERT_EQ(s.longest.size(), 2u);
  EXPECT_EQ(s.longest[0].item_id, "b");
  EXPECT_EQ(s.workers, 20u);
  EXPECT_EQ(s.busy_min, 10 * kS);
  EXPECT_EQ(s.busy_median, 10 * kS);
  EXPECT_EQ(s.busy_max, 100 * kS);
  // Peak 20 busy, so the tail is where fewer than 2 run: from 12 s (worker 1's retry ends) on.
  EXPECT_EQ(s.tail.below_tenth, 88 * kS);
  EXPECT_EQ(s.tail.last_alone, 88 * kS);
  // The last 10 s: the straggler alone, 10 s of 20 workers x 10 s.
  EXPECT_DOUBLE_EQ(s.tail.utilisation_last_tenth, 0.05);
}

// The tail by brute force, microsecond by microsecond: how many attempts run at t (start <= t <
// end), the final stretch below a tenth of the peak, how long the last attempt ran alone, and
// the busy share of the last tenth of the span.
StragglerTail tail_by_counting(const std::vector<std::pair<Micros, Micros>>& spans, Micros run_start, Micros run_end,
                               std::size_t workers) {
  std::vector<int> busy(run_end - run_start, 0);
  for (const auto& [start, end] : spans) {
    for (Micros t = start; t < end; ++t) ++busy[t - run_start];
  }
  int peak = *std::max_element(busy.begin(), busy.end());
  int threshold = std::max(1, (peak + 9) / 10);
  StragglerTail tail;
  for (Micros t = run_end - 1; t >= run_start && busy[t - run_start] < threshold; --t) tail.below_tenth += 1;
  // Alone: the final stretch with one attempt running, and only since the last attempt began (a
  // range handed over to the next at the same instant starts a new "alone").
  Micros alone_from = run_end;
  while (alone_from > run_start && busy[alone_from - 1 - run_start] == 1) --alone_from;
  for (const auto& [start, end] : spans) {
    if (end == run_end) alone_from = std::max(alone_from, start);
  }
  tail.last_alone = run_end - alone_from;
  Micros from = run_end - (run_end - run_start) / 10;
  Micros busy_late = 0;
  for (Micros t = from; t < run_end; ++t) busy_late += busy[t - run_start];
  tail.utilisation_last_tenth = static_cast<double>(busy_late) / static_cast<double>((run_end - from) * workers);
  return tail;
}

TEST(StragglerTail, MatchesCountingTheBusyWorkersAtEveryMicrosecond) {
  std::mt19937_64 draw(17);
  for (int trial = 0; trial < 200; ++trial) {
    std::size_t workers = 1 + draw() % 30;
    std::vector<std::pair<Micros, Micros>> spans;
    std::vector<Micros> starts, ends;
    Micros run_start = static_cast<Micros>(draw() % 50);
    Micros run_end = run_start + 1;
    for (std::size_t i = 0, n = 1 + draw() % 60; i < n; ++i) {
      Micros start = run_start + static_cast<Micros>(draw() % 400);
      Micros end = start + 1 + static_cast<Micros>(draw() % (trial % 2 == 0 ? 40 : 400));
      spans.emplace_back(start, end);
      run_end = std::max(run_end, end);
    }
    spans.emplace_back(run_start, run_start + 1);  // something runs from the start
    for (const auto& [start, end] : spans) {
      starts.push_back(start);
      ends.push_back(end);
    }
    StragglerTail expected = tail_by_counting(spans, run_start, run_end, workers);
    StragglerTail tail = straggler_tail(starts, ends, run_start, run_end, workers);
    EXPECT_EQ(tail.below_tenth, expected.below_tenth) << "trial " << trial;
    EXPECT_EQ(tail.last_alone, expected.last_alone) << "trial " << trial;
    EXPECT_DOUBLE_EQ(tail.utilisation_last_tenth, expected.utilisation_last_tenth) << "trial " << trial;
  }
}

// A simulation's spans: a pool of workers each running back-to-back attempts (a start at the
// very microsecond of the previous end on that worker, the tie the tail's order of events is
// about), logged in the order they end, so the ends come sorted and the starts do not.
TEST(StragglerTail, MatchesCountingOnBackToBackAttemptsLoggedInTheOrderTheyEnd) {
  std::mt19937_64 draw(29);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t workers = 1 + draw() % 40;
    std::vector<std::pair<Micros, Micros>> spans;
    Micros run_end = 1;
    for (std::size_t w = 0; w < workers; ++w) {
      Micros at = static_cast<Micros>(draw() % 5);
      for (std::size_t i = 0, n = 1 + draw() % 12; i < n; ++i) {
        const Micros end = at + 1 + static_cast<Micros>(draw() % (trial % 3 == 0 ? 8 : 120));
        spans.emplace_back(at, end);
        run_end = std::max(run_end, end);
        at = end + static_cast<Micros>(draw() % 3 == 0 ? draw() % 20 : 0);
      }
    }
    spans.emplace_back(0, 1);
    std::stable_sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<Micros> starts, ends;
    for (const auto& [start, end] : spans) {
      starts.push_back(start);
      ends.push_back(end);
    }
    ASSERT_TRUE(std::is_sorted(ends.begin(), ends.end()));
    StragglerTail expected = tail_by_counting(spans, 0, run_end, workers);
    StragglerTail tail = straggler_tail(starts, ends, 0, run_end, workers);
    EXPECT_EQ(tail.below_tenth, expected.below_tenth) << "trial " << trial;
    EXPECT_EQ(tail.last_alone, expected.last_alone) << "trial " << trial;
    EXPECT_DOUBLE_EQ(tail.utilisation_last_tenth, expected.utilisation_last_tenth) << "trial " << trial;
    // The ends in any other order give the same tail.
    std::shuffle(ends.begin(), ends.end(), draw);
    EXPECT_EQ(straggler_tail(starts, ends, 0, run_end, workers), tail) << "trial " << trial;
  }
}

// The peak of attempts at once (what a node pool's tail is a share of), against counting them at
// every microsecond: an attempt ending when another starts does not overlap it.
TEST(BusySweep, PeakMatchesCountingTheAttemptsRunningAtEveryMicrosecond) {
  std::mt19937_64 draw(41);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Micros> starts, ends;
    std::vector<int> running(600, 0);
    for (std::size_t i = 0, n = 1 + draw() % 80; i < n; ++i) {
      const Micros start = static_cast<Micros>(draw() % 500);
      const Micros end = start + 1 + static_cast<Micros>(draw() % (trial % 2 == 0 ? 10 : 90));
      starts.push_back(start);
      ends.push_back(end);
      for (Micros t = start; t < end; ++t) ++running[t];
    }
    const int peak = *std::max_element(running.begin(), running.end());
    EXPECT_EQ(BusySweep::of(starts, ends).peak(), peak) << "trial " << trial;
  }
}

// Instant attempts (a recording's attempts that failed before starting) overlap nothing: two at
// the same microsecond with nothing else running leave the peak at what runs around them.
TEST(BusySweep, InstantAttemptsLeaveThePeakAsItIs) {
  EXPECT_EQ(BusySweep::of({5, 5, 0}, {5, 5, 3}).peak(), 1);
  EXPECT_EQ(BusySweep::of({7, 7, 7}, {7, 7, 7}).peak(), 0);
  EXPECT_EQ(BusySweep::of({0, 4, 4, 2}, {10, 4, 4, 6}).peak(), 2);
}

// The last stretch begins with one attempt starting alone after everything else ended: its start
// (not an end) is where "alone" begins, with the starts given out of order.
TEST(StragglerTail, LastAloneFromTheStartOfAnAttemptBegunAfterAllOthersEnded) {
  std::vector<std::pair<Micros, Micros>> spans = {{0, 10}, {0, 20}, {10, 30}, {20, 40}, {5, 45}, {50, 90}};
  std::vector<Micros> starts, ends;
  for (const auto& [start, end] : spans) {
    starts.push_back(start);
    ends.push_back(end);
  }
  StragglerTail expected = tail_by_counting(spans, 0, 90, 3);
  StragglerTail tail = straggler_tail(starts, ends, 0, 90, 3);
  EXPECT_EQ(tail.last_alone, 40);
  EXPECT_EQ(tail.last_alone, expected.last_alone);
  EXPECT_EQ(tail.below_tenth, expected.below_tenth);
  EXPECT_DOUBLE_EQ(tail.utilisation_last_tenth, expected.utilisation_last_tenth);
}

TEST(StragglerTail, RowsAreTheOnesShowAndSimulatePrint) {
  StragglerTail tail{10974 * kS, 344 * kS, 0.018};
  std::vector<TailRow> rows = tail_rows(tail);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_STREQ(rows[0].label, "tail: < 10% of peak busy");
  EXPECT_EQ(rows[0].value, "3.05 h (10,974 s)");
  EXPECT_EQ(rows[1].value, "5.7 min (344 s)");
  EXPECT_EQ(rows[2].value, "1.8 %");
  EXPECT_EQ(to_json(tail).dump(),
            R"({"below_tenth_us":10974000000,"last_alone_us":344000000,"utilisation_last_tenth":0.018})");
}

// Work time sums what the attempts recorded, failed ones too; an attempt without one adds
// nothing, and the longest attempts keep theirs.
TEST(RunSummary, SumsTheWorkTimeOfTheAttemptsThatRecordOne) {
  std::vector<Attempt> attempts = {attempt("a", "1", 0, 10 * kS), attempt("b", "2", 0, 4 * kS),
                                   attempt("c", "1", 10 * kS, 12 * kS, Outcome::kFailed)};
  attempts[0].work_time = 7 * kS;
  attempts[2].work_time = 1 * kS;
  auto s = summarize({item("a"), item("b"), item("c")}, attempts, 1);
  EXPECT_EQ(s.work_time, 8 * kS);
  EXPECT_EQ(s.total_work, 16 * kS);
  ASSERT_EQ(s.longest.size(), 1u);
  EXPECT_EQ(s.longest[0].work_time, 7 * kS);
  attempts[0].work_time.reset();
  attempts[2].work_time.reset();
  EXPECT_EQ(summarize({item("a"), item("b"), item("c")}, attempts, 1).work_time, 0);
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
