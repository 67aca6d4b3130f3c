// PlannedWork, the plan kept in columns: the items it gives back are the ones it was built from
// (plain range items with their ids derived, the others kept whole), the range-only builder
// names items by their END/COUNT form, and both builders refuse what WorkGraph refuses, naming
// the plan and the problem as it does (a duplicate id is found by sorting the ranges when every
// item is a plain range item).
#include "scheduler/planned_work.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "data/error.h"

namespace millrace::scheduler {
namespace {

// A range item as simulations, comparisons and importers make them, written out by hand.
data::WorkItem range_item(std::int64_t first, std::int64_t count) {
  data::WorkItem item;
  item.id = std::to_string(first + count - 1) + "/" + std::to_string(count);
  item.range = data::Range{first, count};
  return item;
}

// The problem of building a plan, checking the error names the plan.
std::string problem_building(const std::function<void()>& build) {
  try {
    build();
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "plan.json");
    return e.problem();
  }
  return "no error";
}

std::string problem_of(const std::vector<data::WorkItem>& items) {
  return problem_building([&] { PlannedWork plan(items, "plan.json"); });
}

std::string problem_of_ranges(const std::vector<data::Range>& ranges) {
  return problem_building([&] { PlannedWork plan(ranges, {}, {}, "plan.json"); });
}

TEST(PlannedWork, PlainRangeItemsComeBackWithTheirIdsDerived) {
  std::vector<data::WorkItem> items{range_item(0, 10), range_item(10, 5), range_item(15, 1)};
  items[1].predicted = 7;
  items[2].submit_at = 40;
  const PlannedWork plan(items, "plan.json");
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_TRUE(plan.all_plain());
  EXPECT_EQ(plan.id(0), "9/10");
  EXPECT_EQ(plan.id(1), "14/5");
  EXPECT_EQ(plan.id(2), "15/1");
  for (std::size_t i = 0; i < items.size(); ++i) {
    EXPECT_TRUE(plan.plain(i));
    EXPECT_EQ(plan.item(i), items[i]) << i;
    EXPECT_EQ(*plan.range(i), *items[i].range);
    EXPECT_EQ(plan.type(i), "range");
    EXPECT_TRUE(plan.requests(i).empty());
  }
  EXPECT_EQ(plan.predicted(1), 7);
  EXPECT_EQ(plan.submit_at(2), 40);
  EXPECT_EQ(plan.items(), items);
  EXPECT_EQ(plan.graph().size(), 3u);
  EXPECT_FALSE(plan.graph().has_dependencies());
  EXPECT_TRUE(plan.graph().dependents(1).empty());
}

TEST(PlannedWork, ItemsWithMoreThanARangeRoundTripWhole) {
  std::vector<data::WorkItem> items{range_item(0, 10), range_item(10, 10), range_item(20, 10)};
  items[1].id = "second";                // an id not derived from its range
  data::WorkItem job;
  job.id = "job-7";                      // no range at all
  job.payload = "--size 4";
  job.type = "batch";
  job.priority = 3;
  job.depends_on = {"second"};
  job.requests = {{"cpu", 2000}};
  job.predicted = 11;
  job.submit_at = 5;
  items.push_back(job);
  items[2].requests = {{"cpu", 2000}};   // a plain item asking for the same as the job
  const PlannedWork plan(items, "plan.json");
  EXPECT_FALSE(plan.all_plain());
  EXPECT_TRUE(plan.plain(0));
  EXPECT_FALSE(plan.plain(1));
  EXPECT_TRUE(plan.plain(2));
  EXPECT_FALSE(plan.plain(3));
  EXPECT_EQ(plan.items(), items);
  EXPECT_EQ(plan.id(1), "second");
  EXPECT_EQ(plan.range(3), nullptr);
  EXPECT_EQ(plan.type(3), "batch");
  EXPECT_EQ(plan.priority(3), 3);
  EXPECT_EQ(plan.whole(3).payload, "--size 4");
  EXPECT_EQ(&plan.requests(2), &plan.requests(3)) << "equal requests are kept once";
  EXPECT_EQ(plan.graph().predecessor_count(3), 1);
  EXPECT_TRUE(plan.graph().has_dependencies());
}

TEST(PlannedWork, AskedRequestSetsAreListedOnceEachWithTheFirstItemAskingInPlanOrder) {
  std::vector<data::WorkItem> items;
  for (int i = 0; i < 6; ++i) items.push_back(range_item(10 * i, 10));
  items[1].requests = {{"memory", 512}};
  items[2].requests = {{"cpu", 1000}};
  items[3].requests = {{"memory", 512}};  // as item 1
  items[5].requests = {{"cpu", 1000}, {"memory", 512}};
  const PlannedWork plan(items, "plan.json");
  ASSERT_EQ(plan.asked_set_count(), 3u) << "item 0 and 4 ask for nothing; item 3 asks as item 1";
  EXPECT_EQ(plan.first_asking(0), 1u);
  EXPECT_EQ(plan.first_asking(1), 2u);
  EXPECT_EQ(plan.first_asking(2), 5u);
  EXPECT_EQ(plan.requests(plan.first_asking(2)), items[5].requests);

  const PlannedWork asking_nothing(std::vector<data::WorkItem>{range_item(0, 10)}, "plan.json");
  EXPECT_EQ(asking_nothing.asked_set_count(), 0u);
}

TEST(PlannedWork, RangesBuildPlainItemsWithPredictionsAndTheFirstItemsRequests) {
  const std::vector<data::Range> ranges{{100, 50}, {150, 50}, {200, 25}};
  const PlannedWork plan(ranges, {3, 0, 8}, {{{"cpu", 500}}}, "plan.json");
  std::vector<data::WorkItem> expected{range_item(100, 50), range_item(150, 50), range_item(200, 25)};
  expected[0].predicted = 3;
  expected[2].predicted = 8;
  expected[0].requests = {{"cpu", 500}};
  EXPECT_EQ(plan.items(), expected);
  EXPECT_TRUE(plan.all_plain());
  EXPECT_EQ(plan.graph().critical_path(), 8);

  const PlannedWork unpredicted(ranges, {0, 0, 0}, {}, "plan.json");
  EXPECT_EQ(unpredicted.predicted(2), 0);
  EXPECT_EQ(unpredicted.item(1), range_item(150, 50));
}

TEST(PlannedWork, ARangeGivenTwiceIsADuplicateIdNamedAtItsFirstRepeat) {
  // Sorted, the repeats of [0, 10) come first, but [10, 5) repeats earlier in plan order.
  EXPECT_EQ(problem_of_ranges({{10, 5}, {0, 10}, {10, 5}, {0, 10}}), "item id '14/5' appears twice");
  EXPECT_EQ(problem_of_ranges({{0, 10}, {0, 9}, {1, 9}}), "no error") << "equal ends or starts are not equal ranges";
  EXPECT_EQ(problem_of({range_item(0, 10), range_item(10, 10), range_item(0, 10)}), "item id '9/10' appears twice");
}

TEST(PlannedWork, ADerivedIdEqualToAnotherItemsOwnIdIsADuplicate) {
  data::WorkItem named;
  named.id = "9/10";
  named.payload = "x";
  EXPECT_EQ(problem_of({range_item(0, 10), named}), "item id '9/10' appears twice");
}

TEST(PlannedWork, DependencyErrorsNameTheItemsAsWorkGraphDoes) {
  std::vector<data::WorkItem> items{range_item(0, 10), range_item(10, 10)};
  items[1].depends_on = {"verify"};
  EXPECT_EQ(problem_of(items), "item '19/10' depends on unknown item 'verify'");
  items[1].depends_on = {"9/10"};
  items[0].depends_on = {"19/10"};
  EXPECT_EQ(problem_of(items), "dependency cycle: 9/10 -> 19/10 -> 9/10");
}

TEST(PlannedWork, AnEmptyPlanHasNoItems) {
  const PlannedWork plan(std::vector<data::Range>{}, {}, {}, "plan.json");
  EXPECT_EQ(plan.size(), 0u);
  EXPECT_TRUE(plan.items().empty());
  EXPECT_EQ(plan.graph().critical_path(), 0);
}

}  // namespace
}  // namespace millrace::scheduler
