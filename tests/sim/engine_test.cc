#include "sim/engine.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <vector>

#include "sim/virtual_clock.h"

namespace millrace::sim {
namespace {

struct Recorder {
  SimEngine* engine = nullptr;
  std::vector<std::pair<data::Micros, std::uint32_t>> seen;
  void operator()(const SimEvent& e) { seen.emplace_back(engine->now(), e.index); }
};

TEST(Engine, EventsAtEqualTimesRunInInsertionOrder) {
  SimEngine engine;
  Recorder rec{&engine, {}};
  for (std::uint32_t i = 0; i < 50; ++i) engine.at(i % 3 == 0 ? 7 : 5, SimEvent{SimEvent::Kind::kPlace, i, 0});
  engine.run(rec);
  ASSERT_EQ(rec.seen.size(), 50u);
  std::vector<std::uint32_t> expected;
  for (std::uint32_t i = 0; i < 50; ++i) if (i % 3 != 0) expected.push_back(i);
  for (std::uint32_t i = 0; i < 50; ++i) if (i % 3 == 0) expected.push_back(i);
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(rec.seen[k].second, expected[k]) << k;
  EXPECT_EQ(rec.seen.front().first, 5);
  EXPECT_EQ(rec.seen.back().first, 7);
}

TEST(Engine, CancelledEventsNeverRunAndCancellingTwiceFails) {
  SimEngine engine;
  Recorder rec{&engine, {}};
  EventId a = engine.at(1, SimEvent{SimEvent::Kind::kPlace, 1, 0});
  engine.at(2, SimEvent{SimEvent::Kind::kPlace, 2, 0});
  EventId c = engine.at(3, SimEvent{SimEvent::Kind::kPlace, 3, 0});
  EXPECT_TRUE(engine.cancel(a));
  EXPECT_FALSE(engine.cancel(a));
  EXPECT_TRUE(engine.cancel(c));
  EXPECT_EQ(engine.pending(), 1u);
  engine.run(rec);
  ASSERT_EQ(rec.seen.size(), 1u);
  EXPECT_EQ(rec.seen[0].second, 2u);
}

TEST(Engine, ReusedSlotIsNotCancelledByAStaleId) {
  SimEngine engine;
  Recorder rec{&engine, {}};
  EventId a = engine.at(1, SimEvent{SimEvent::Kind::kPlace, 1, 0});
  engine.cancel(a);
  engine.at(2, SimEvent{SimEvent::Kind::kPlace, 2, 0});
  EXPECT_FALSE(engine.cancel(a));
  engine.run(rec);
  ASSERT_EQ(rec.seen.size(), 1u);
}

TEST(Engine, PastEventsRunNowAndRunStopsAtTheLimit) {
  SimEngine engine;
  Recorder rec{&engine, {}};
  engine.at(10, SimEvent{SimEvent::Kind::kPlace, 1, 0});
  engine.at(20, SimEvent{SimEvent::Kind::kPlace, 2, 0});
  EXPECT_EQ(engine.run(rec, 15), 1u);
  engine.at(3, SimEvent{SimEvent::Kind::kPlace, 3, 0});
  engine.run(rec);
  ASSERT_EQ(rec.seen.size(), 3u);
  EXPECT_EQ(rec.seen[1], std::make_pair(data::Micros{10}, std::uint32_t{3}));
}

TEST(Engine, ManyRandomEventsComeOutSorted) {
  SimEngine engine;
  Recorder rec{&engine, {}};
  std::uint64_t x = 12345;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    engine.at(static_cast<data::Micros>(x >> 50), SimEvent{SimEvent::Kind::kPlace, i, 0});
  }
  engine.run(rec);
  ASSERT_EQ(rec.seen.size(), 5000u);
  for (std::size_t k = 1; k < rec.seen.size(); ++k) {
    ASSERT_LE(rec.seen[k - 1].first, rec.seen[k].first);
    if (rec.seen[k - 1].first == rec.seen[k].first) {
      ASSERT_LT(rec.seen[k - 1].second, rec.seen[k].second);
    }
  }
}

// A handler that keeps scheduling (at now, soon and far ahead, over 40 bits of time) and
// cancelling while the engine runs, checked against a reference: a std::map keyed by
// (time, insertion number), which is the order the engine promises.
struct Churn {
  SimEngine* engine = nullptr;
  std::map<std::pair<data::Micros, std::uint64_t>, EventId> expected;  // pending, in promised order
  std::uint64_t inserted = 0;
  std::uint64_t x = 99;
  std::uint64_t handled = 0;
  std::uint64_t next_random() {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 17;
  }
  void schedule(data::Micros at) {
    std::uint64_t number = inserted++;
    EventId id = engine->at(at, SimEvent{SimEvent::Kind::kPlace, 0, number});
    expected.emplace(std::make_pair(at, number), id);
  }
  void operator()(const SimEvent& e) {
    ASSERT_FALSE(expected.empty());
    auto first = expected.begin();
    ASSERT_EQ(first->first.first, engine->now()) << "event " << e.value << " after " << handled;
    ASSERT_EQ(first->first.second, e.value) << "at " << engine->now();
    expected.erase(first);
    if (++handled > 40000) return;
    std::uint64_t r = next_random();
    int spread = static_cast<int>(r % 5);
    data::Micros delay = spread == 0 ? 0 : static_cast<data::Micros>(next_random() % (std::uint64_t{1} << (spread * 10)));
    schedule(engine->now() + delay);
    if (r % 3 == 0) {
      schedule(engine->now() + delay);  // a tie, waiting in the same bucket
      schedule(engine->now() + delay / 2);
    }
    if (r % 7 == 0 && !expected.empty()) {
      auto victim = std::next(expected.begin(), static_cast<long>(next_random() % expected.size()));
      ASSERT_TRUE(engine->cancel(victim->second));
      expected.erase(victim);
    }
  }
};

TEST(Engine, ChurnOfSchedulingAndCancellingKeepsTimeThenInsertionOrder) {
  SimEngine engine;
  Churn churn{&engine, {}};
  for (int i = 0; i < 2000; ++i) churn.schedule(static_cast<data::Micros>(churn.next_random() % (1 << 20)));
  // Stops at a limit (the engine peeks at the next time), then schedules before that next event.
  engine.run(churn, 1 << 19);
  churn.schedule(engine.now() + 1);
  churn.schedule(engine.now() + 1);
  engine.run(churn);
  EXPECT_TRUE(churn.expected.empty());
  EXPECT_GT(churn.handled, 40000u);
  EXPECT_EQ(engine.pending(), 0u);
}

struct ClockDriver {
  VirtualClock& clock;
  void operator()(const SimEvent& e) { clock.fire(e); }
};

TEST(VirtualClock, TimersFireAtTheirTimeAndCancelledOnesDoNot) {
  SimEngine engine;
  VirtualClock clock(engine);
  std::vector<data::Micros> fired;
  clock.call_at(30, [&] { fired.push_back(clock.now()); });
  scheduler::TimerId gone = clock.call_at(20, [&] { fired.push_back(-1); });
  clock.call_at(10, [&] {
    fired.push_back(clock.now());
    clock.call_at(15, [&] { fired.push_back(clock.now()); });
  });
  clock.cancel_timer(gone);
  clock.cancel_timer(gone);
  ClockDriver driver{clock};
  engine.run(driver);
  EXPECT_EQ(fired, (std::vector<data::Micros>{10, 15, 30}));
}

}  // namespace
}  // namespace millrace::sim
