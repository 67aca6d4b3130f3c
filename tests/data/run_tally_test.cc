#include "data/run_tally.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <tuple>

namespace millrace::data {
namespace {

// One attempt of a generated run, as a simulation would report it.
struct Generated {
  AttemptSpan span;
  bool start_reported = true;
};

// A pool of `workers` running attempts back to back (often starting at the very microsecond the
// previous one ended, the tie the profile's order is about), with failures, attempts that end
// the instant they start (reported or never started), attempts on no named worker, some of an
// item outside the plan, and (if asked) long stragglers.
std::vector<Generated> generated_run(std::mt19937_64& draw, std::uint32_t workers, std::size_t per_worker,
                                     std::uint32_t items, bool stragglers) {
  std::vector<Generated> run;
  for (std::uint32_t w = 0; w < workers; ++w) {
    Micros at = static_cast<Micros>(draw() % 7);
    for (std::size_t i = 0; i < per_worker; ++i) {
      Generated g;
      g.span.item = static_cast<std::uint32_t>(draw() % (items + 3));  // a few outside the plan
      g.span.worker = draw() % 17 == 0 ? AttemptSpan::kNoWorker : w;
      g.span.outcome = draw() % 9 == 0 ? Outcome::kFailed : Outcome::kSucceeded;
      g.span.start = at;
      const auto kind = draw() % 40;
      Micros length = 1 + static_cast<Micros>(draw() % 90);
      if (kind == 0) length = 0;                                   // ends as it starts
      if (kind == 1 && stragglers) length = 2000 + static_cast<Micros>(draw() % 30000);
      g.span.end = at + length;
      g.start_reported = !(length == 0 && draw() % 2 == 0);        // half of those never started
      run.push_back(g);
      at = g.span.end + (draw() % 3 == 0 ? static_cast<Micros>(draw() % 20) : 0);
    }
  }
  return run;
}

// A call to the tally: a start (of the attempt at `attempt`) or its end.
struct Call {
  Micros at;
  bool is_end;
  std::size_t attempt;
  std::uint64_t order;  // random among calls at the same time; an instant attempt's two share it
};

// The calls in time order, in any order among equal times but an attempt's start before its end.
std::vector<Call> calls_in_time_order(const std::vector<Generated>& run, std::mt19937_64& draw) {
  std::vector<Call> calls;
  for (std::size_t i = 0; i < run.size(); ++i) {
    const std::uint64_t order = draw();
    if (run[i].start_reported) calls.push_back(Call{run[i].span.start, false, i, order});
    calls.push_back(Call{run[i].span.end, true, i, run[i].span.end == run[i].span.start ? order : draw()});
  }
  std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return std::make_tuple(a.at, a.order, a.is_end) < std::make_tuple(b.at, b.order, b.is_end);
  });
  return calls;
}

// The same run as a recording: the attempts in the order they ended, workers and items by name.
std::vector<Attempt> as_recorded(const std::vector<Generated>& run, const std::vector<Call>& calls) {
  std::vector<Attempt> attempts;
  for (const Call& call : calls) {
    if (!call.is_end) continue;
    const AttemptSpan& s = run[call.attempt].span;
    Attempt a;
    a.item_id = "item-" + std::to_string(s.item);
    a.worker = s.worker == AttemptSpan::kNoWorker ? "" : "w" + std::to_string(s.worker);
    a.start = s.start;
    a.end = s.end;
    a.outcome = s.outcome;
    attempts.push_back(a);
  }
  return attempts;
}

// What a simulation tallies as it runs is what `show` computes from the same attempts recorded:
// every figure of the summary, the straggler tail included, with the sweep dropping what the
// last tenth cannot need several times over (runs of 30,000 attempts and more, their last tenth
// alone longer than the sweep's 4,096 attempts between two drops when nothing straggles, or
// dropping at every attempt), and the pods' tail equal to the tail of every attempt that lasted
// against the most at once.
TEST(RunTally, SweptAsTheAttemptsStartAndEndItGivesTheSummaryOfTheSameAttemptsRecorded) {
  std::mt19937_64 draw(2026);
  int with_a_tail = 0;  // trials whose runs end on fewer than a tenth of their peak
  for (int trial = 0; trial < 8; ++trial) {
    const auto workers = static_cast<std::uint32_t>(1 + draw() % 64);
    const std::size_t per_worker = 30000 / workers + 1 + draw() % 200;
    const auto item_count = static_cast<std::uint32_t>(workers * per_worker / 2);
    const std::vector<Generated> run = generated_run(draw, workers, per_worker, item_count, trial % 2 == 0);
    const std::vector<Call> calls = calls_in_time_order(run, draw);

    // Half the trials drop at every attempt: the bound then reaches the last tenth's very start.
    RunTally tally(item_count, 5, RunTally::Sweep::kWorkersAndPods, trial % 4 < 2 ? 4096 : 1);
    std::vector<std::size_t> ended;  // run positions in the order they ended
    for (const Call& call : calls) {
      const Generated& g = run[call.attempt];
      if (call.is_end) {
        tally.ended(g.span, g.start_reported);
        ended.push_back(call.attempt);
      } else {
        tally.started(call.at, g.span.worker != AttemptSpan::kNoWorker);
      }
    }

    std::vector<WorkItem> items(item_count);
    for (std::uint32_t i = 0; i < item_count; ++i) items[i].id = "item-" + std::to_string(i);
    const std::vector<Attempt> recorded = as_recorded(run, calls);
    RunSummary expected = summarize(items, recorded, 5);
    RunSummary tallied = tally.summary();
    ASSERT_EQ(tally.longest().size(), expected.longest.size()) << "trial " << trial;
    for (const auto& [span, position] : tally.longest()) tallied.longest.push_back(recorded[position]);
    // Worker numbers differ (the recording numbers them as first seen): the summary does not show them.
    tallied.waits = expected.waits;
    tallied.has_submit_times = expected.has_submit_times;
    tallied.never_started = expected.never_started;
    EXPECT_EQ(tallied, expected) << "trial " << trial;
    with_a_tail += expected.tail.below_tenth > 0 ? 1 : 0;

    std::vector<Micros> starts, ends;
    for (const Generated& g : run) {
      if (g.span.end <= g.span.start) continue;
      starts.push_back(g.span.start);
      ends.push_back(g.span.end);
    }
    const int peak = BusySweep::of(starts, ends).peak();
    const Micros first = *std::min_element(starts.begin(), starts.end());
    const Micros last = *std::max_element(ends.begin(), ends.end());
    EXPECT_EQ(tally.pods_tail(), straggler_tail(starts, ends, first, last, static_cast<std::size_t>(peak)))
        << "trial " << trial;

    // Each planned item's first start, against the attempts themselves.
    std::vector<Micros> first_starts(item_count, RunTally::kNotStarted);
    for (const Generated& g : run) {
      if (g.span.item >= item_count) continue;
      Micros& f = first_starts[g.span.item];
      if (f == RunTally::kNotStarted || g.span.start < f) f = g.span.start;
    }
    EXPECT_EQ(tally.first_starts(), first_starts) << "trial " << trial;
  }
  EXPECT_GE(with_a_tail, 3);
}

TEST(RunTally, PerWorkerBusyTimeAndAttemptsAreThoseOfTheAttemptsOnEachWorker) {
  RunTally tally(2, 5, RunTally::Sweep::kWorkers);
  tally.started(0, true);
  tally.started(0, false);
  tally.ended(AttemptSpan{0, 1, 0, 10, Outcome::kSucceeded}, true);
  tally.started(10, true);
  tally.ended(AttemptSpan{1, AttemptSpan::kNoWorker, 0, 12, Outcome::kSucceeded}, true);
  tally.ended(AttemptSpan{1, 1, 10, 15, Outcome::kFailed}, true);
  ASSERT_EQ(tally.worker_slots(), 2u);
  EXPECT_EQ(tally.worker_attempts(0), 0u);
  EXPECT_EQ(tally.worker_busy(1), 15);
  EXPECT_EQ(tally.worker_attempts(1), 2u);
  EXPECT_EQ(tally.last_end(), 15);
  const RunSummary s = tally.summary();
  EXPECT_EQ(s.attempts, 3u);
  EXPECT_EQ(s.failed_attempts, 1u);
  EXPECT_EQ(s.items_without_success, 0u);
  EXPECT_EQ(s.workers, 1u);
  EXPECT_EQ(s.total_work, 10 + 12 + 5);
  EXPECT_EQ(s.makespan, 15);
  ASSERT_EQ(tally.longest().size(), 3u);
  EXPECT_EQ(tally.longest()[0].second, 1u);  // the 12 us one, second to end
}

// Sweeping needs every attempt that lasted to have had its start reported in time order: one
// that was not would silently bend the tail, so it is refused, naming the attempt.
TEST(RunTally, AnAttemptThatLastedWithoutAReportedStartIsRefused) {
  RunTally tally(1, 5, RunTally::Sweep::kWorkers);
  tally.started(0, true);
  tally.ended(AttemptSpan{0, 0, 0, 5, Outcome::kFailed}, true);
  try {
    tally.ended(AttemptSpan{0, 0, 2, 9, Outcome::kSucceeded}, false);
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("item 0 lasted from 2 to 9 us but its start was never reported"),
              std::string::npos)
        << e.what();
  }
  // Without a sweep (a recording, in any order) it is just an attempt.
  RunTally recording(1, 5, RunTally::Sweep::kNone);
  recording.ended(AttemptSpan{0, 0, 2, 9, Outcome::kSucceeded}, false);
  EXPECT_EQ(recording.attempts(), 1u);
}

}  // namespace
}  // namespace millrace::data
