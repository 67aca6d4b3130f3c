#include "cluster_adapter/realtime/wall_clock.h"

#include <gtest/gtest.h>

#include <vector>

#include "cluster_adapter/realtime/real_run_loop.h"

namespace millrace::cluster_adapter {
namespace {

TEST(WallClockTest, StartsAtTheGivenOriginAndNeverGoesBack) {
  WallClock clock(1'000);
  data::Micros first = clock.now();
  EXPECT_GE(first, 1'000);
  EXPECT_GE(clock.now(), first);
}

TEST(WallClockTest, DefaultOriginIsTheSystemClockInMicroseconds) {
  WallClock clock;
  EXPECT_GT(clock.now(), data::Micros{1'600'000'000} * data::kMicrosPerSecond);
}

TEST(WallClockTest, FiresDueTimersInDueTimeOrderAndKeepsFutureOnes) {
  WallClock clock(0);
  std::vector<int> fired;
  clock.call_at(20, [&] { fired.push_back(2); });
  clock.call_at(10, [&] { fired.push_back(1); });
  clock.call_at(10 * data::kMicrosPerHour, [&] { fired.push_back(3); });
  while (clock.now() < 20) {
  }
  EXPECT_EQ(clock.fire_due(), 2);
  EXPECT_EQ(fired, (std::vector<int>{1, 2}));
  EXPECT_EQ(clock.next_due(), 10 * data::kMicrosPerHour);
}

TEST(WallClockTest, CancelledTimerNeverFiresAndCancellingTwiceIsHarmless) {
  WallClock clock(0);
  bool fired = false;
  scheduler::TimerId id = clock.call_at(0, [&] { fired = true; });
  clock.cancel_timer(id);
  clock.cancel_timer(id);
  clock.cancel_timer(12345);
  EXPECT_EQ(clock.fire_due(), 0);
  EXPECT_FALSE(fired);
  EXPECT_EQ(clock.next_due(), std::nullopt);
}

TEST(WallClockTest, PastTimerAddedByACallbackFiresInTheSamePass) {
  WallClock clock(0);
  int fired = 0;
  clock.call_at(0, [&] {
    ++fired;
    clock.call_at(0, [&] { ++fired; });
  });
  EXPECT_EQ(clock.fire_due(), 2);
  EXPECT_EQ(fired, 2);
}

// A cluster that only counts polls and the waits it was given.
class CountingCluster : public PolledCluster {
 public:
  void set_listener(scheduler::ClusterListener*) override {}
  void submit(const scheduler::Submission&) override {}
  void cancel(scheduler::AttemptHandle) override {}
  int capacity() const override { return 1; }
  void poll(data::Micros max_wait) override { waits.push_back(max_wait); }
  std::vector<data::Micros> waits;
};

TEST(RealRunLoopTest, AlternatesTimersAndPollsUntilDoneAndBoundsEachWait) {
  WallClock clock(0);
  CountingCluster cluster;
  bool done = false;
  clock.call_at(0, [&] { clock.call_at(clock.now() + data::kMicrosPerMilli, [&] { done = true; }); });
  int steps = 0;
  RealRunLoop loop(clock, cluster, 50 * data::kMicrosPerMilli);
  loop.run_until([&] { return done; }, [&] { ++steps; });
  EXPECT_TRUE(done);
  EXPECT_GE(steps, 1);
  EXPECT_EQ(steps, static_cast<int>(cluster.waits.size()));
  for (data::Micros wait : cluster.waits) {
    EXPECT_GE(wait, 0);
    EXPECT_LE(wait, 50 * data::kMicrosPerMilli);
  }
}

TEST(RealRunLoopTest, WaitsForTheNextTimerInsideThePoll) {
  WallClock clock(0);
  CountingCluster cluster;
  bool done = false;
  clock.call_at(data::kMicrosPerHour, [&] { done = true; });
  RealRunLoop loop(clock, cluster, 10 * data::kMicrosPerHour);
  loop.run_until([&] { return cluster.waits.size() == 1; });
  ASSERT_EQ(cluster.waits.size(), 1u);
  EXPECT_GT(cluster.waits[0], data::kMicrosPerHour - data::kMicrosPerSecond * 60);
  EXPECT_LE(cluster.waits[0], data::kMicrosPerHour);
  EXPECT_FALSE(done);
}

}  // namespace
}  // namespace millrace::cluster_adapter
