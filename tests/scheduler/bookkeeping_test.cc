// The scheduler's own containers: FlightTable (attempts in flight by handle, places reused) and
// IndexSet (idle pool workers, lowest first).
#include <gtest/gtest.h>

#include <map>
#include <string>

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
