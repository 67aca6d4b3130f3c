// The scheduler's own containers: FlightTable (attempts in flight by handle, places reused) and
// IndexSet (idle pool workers, lowest first).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "scheduler/flight_table.h"
#include "scheduler/index_set.h"

namespace millrace::scheduler {
namespace {

TEST(FlightTable, FindsWhatIsInFlightAndForgetsWhatFinished) {
  FlightTable<std::string> table;
  table.insert(1, "a");
  table.insert(2, "b");
  table.insert(7, "c");  // handles need not be dense (a resumed run starts from a snapshot's)
  ASSERT_NE(table.find(2), nullptr);
  EXPECT_EQ(*table.find(2), "b");
  table.erase(2);
  EXPECT_EQ(table.find(2), nullptr);
  EXPECT_EQ(table.find(3), nullptr);
  EXPECT_EQ(table.find(1000), nullptr);
  EXPECT_EQ(table.size(), 2u);
  // The freed place is reused by the next attempt; the others keep their records.
  table.insert(8, "d");
  EXPECT_EQ(*table.find(1), "a");
  EXPECT_EQ(*table.find(7), "c");
  EXPECT_EQ(*table.find(8), "d");
  std::map<AttemptHandle, std::string> seen;
  table.for_each([&](AttemptHandle handle, const std::string& record) { seen[handle] = record; });
  EXPECT_EQ(seen, (std::map<AttemptHandle, std::string>{{1, "a"}, {7, "c"}, {8, "d"}}));
}

// The handles the table covers, from the oldest in flight to the newest added since it was last
// empty (a reference kept beside it): it covers them all and fewer than twice as many.
void expect_window_fits(const FlightTable<AttemptHandle>& table, AttemptHandle oldest, AttemptHandle newest) {
  const std::size_t span = newest - oldest + 1;
  EXPECT_GE(table.handles_covered(), span);
  EXPECT_LT(table.handles_covered(), 2 * span);
}

// A million attempts, a few in flight at a time and a straggler that stays for the first
// hundred thousand: the table covers the handles in flight, not every handle of the run.
TEST(FlightTable, CoversTheHandlesInFlightNotEveryHandleOfTheRun) {
  FlightTable<AttemptHandle> table;
  std::deque<AttemptHandle> in_flight;
  constexpr AttemptHandle kStraggler = 500;
  for (AttemptHandle handle = 1; handle <= 1'000'000; ++handle) {
    table.insert(handle, handle * 2);
    if (handle != kStraggler) in_flight.push_back(handle);
    if (in_flight.size() > 8) {
      table.erase(in_flight.front());
      in_flight.pop_front();
    }
    if (handle == 100'000) table.erase(kStraggler);
    const bool straggling = handle >= kStraggler && handle < 100'000;
    expect_window_fits(table, straggling ? std::min(kStraggler, in_flight.front()) : in_flight.front(), handle);
    if (::testing::Test::HasFailure()) FAIL() << "at handle " << handle;
  }
  EXPECT_EQ(table.size(), 8u);
  EXPECT_LT(table.handles_covered(), 16u);
  EXPECT_EQ(table.find(kStraggler), nullptr);
  EXPECT_EQ(table.find(999'992), nullptr);
  ASSERT_NE(table.find(999'993), nullptr);
  EXPECT_EQ(*table.find(999'993), 1'999'986u);
  // An older handle (a resumed run's, adopted out of order) makes the window reach back to it.
  table.insert(3, 6);
  EXPECT_EQ(*table.find(3), 6u);
  EXPECT_EQ(*table.find(1'000'000), 2'000'000u);
  std::size_t visited = 0;
  table.for_each([&](AttemptHandle handle, const AttemptHandle& record) {
    EXPECT_EQ(record, handle * 2);
    ++visited;
  });
  EXPECT_EQ(visited, 9u);
  table.erase(3);
  expect_window_fits(table, 999'993, 1'000'000);
  for (AttemptHandle handle : in_flight) table.erase(handle);
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.handles_covered(), 0u);
}

// A run resumed from a snapshot taken late starts at large handles: the table covers those.
TEST(FlightTable, StartsItsWindowAtTheFirstHandleItHolds) {
  FlightTable<AttemptHandle> table;
  table.insert(10'000'000'000, 1);
  table.insert(10'000'000'002, 2);
  EXPECT_EQ(table.handles_covered(), 3u);
  EXPECT_EQ(*table.find(10'000'000'002), 2u);
  EXPECT_EQ(table.find(10'000'000'001), nullptr);
  EXPECT_EQ(table.find(2), nullptr);
}

// Attempts ending in any order (failures retried under new handles, cancellations, stragglers),
// and now and then a handle set aside and added late, as a resumed run adopts its attempts:
// the table answers as a map of the attempts in flight would, and its window stays fitted.
TEST(FlightTable, AnswersAsAMapOfTheAttemptsInFlight) {
  FlightTable<AttemptHandle> table;
  std::map<AttemptHandle, AttemptHandle> reference;  // handle -> record
  std::vector<AttemptHandle> late;
  std::mt19937_64 random(30);
  AttemptHandle next = 1;
  AttemptHandle newest = 0;  // the newest added since the table was last empty
  auto add = [&](AttemptHandle handle) {
    newest = reference.empty() ? handle : std::max(newest, handle);
    table.insert(handle, handle + 7);
    reference[handle] = handle + 7;
  };
  for (int step = 0; step < 200'000; ++step) {
    const std::uint64_t draw = random() % 100;
    const std::size_t in_flight_cap = step % 20'000 < 10'000 ? 64 : 3;  // crowded, then nearly drained
    if (draw < 3) {
      late.push_back(next++);
    } else if (draw < 6 && !late.empty()) {
      add(late.back());
      late.pop_back();
    } else if (draw < 55 && reference.size() < in_flight_cap) {
      add(next++);
    } else if (!reference.empty()) {
      // Mostly one of the oldest (runs end roughly in order), sometimes any (a failure, a cancel).
      const std::size_t reach = draw < 90 ? std::min<std::size_t>(reference.size(), 4) : reference.size();
      auto ending = std::next(reference.begin(), static_cast<std::ptrdiff_t>(random() % reach));
      table.erase(ending->first);
      reference.erase(ending);
    }
    ASSERT_EQ(table.size(), reference.size());
    if (reference.empty()) {
      ASSERT_EQ(table.handles_covered(), 0u) << "step " << step;
    } else {
      expect_window_fits(table, reference.begin()->first, newest);
    }
    for (AttemptHandle probe : {next - 1, next - 2, next - 70, next, next + 1}) {
      auto expected = reference.find(probe);
      const AttemptHandle* found = table.find(probe);
      if (expected == reference.end()) {
        ASSERT_EQ(found, nullptr) << "handle " << probe << " at step " << step;
      } else {
        ASSERT_NE(found, nullptr) << "handle " << probe << " at step " << step;
        ASSERT_EQ(*found, expected->second);
      }
    }
    if (step % 97 == 0) {
      std::map<AttemptHandle, AttemptHandle> seen;
      table.for_each([&](AttemptHandle handle, const AttemptHandle& record) { seen[handle] = record; });
      ASSERT_EQ(seen, reference) << "step " << step;
    }
    if (::testing::Test::HasFailure()) FAIL() << "at step " << step;
  }
  for (const auto& [handle, record] : reference) EXPECT_EQ(*table.find(handle), record);
}

TEST(IndexSet, ServesTheLowestMemberAcrossWords) {
  IndexSet set(200);
  EXPECT_TRUE(set.empty());
  set.insert(130);
  set.insert(5);
  set.insert(64);
  EXPECT_EQ(set.first(), 5u);
  EXPECT_TRUE(set.erase(5));
  EXPECT_FALSE(set.erase(5));
  EXPECT_EQ(set.first(), 64u);
  EXPECT_TRUE(set.erase(64));
  EXPECT_EQ(set.first(), 130u);
  set.insert(3);  // below where the search had moved on to
  EXPECT_EQ(set.first(), 3u);
  set.insert(3);
  EXPECT_EQ(set.size(), 2u);
  EXPECT_TRUE(set.contains(130));
  set.clear();
  EXPECT_TRUE(set.empty());
  EXPECT_FALSE(set.contains(130));
}

}  // namespace
}  // namespace millrace::scheduler
