// WorkGraph on its own: the order in which dependents() lists an item's dependents (the
// scheduler makes them available in that order, so simulation output depends on it), in-degrees,
// the plan errors it rejects and the critical path.
#include "scheduler/work_graph.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "data/error.h"

namespace millrace::scheduler {
namespace {

std::vector<data::WorkItem> items_named(int n) {
  std::vector<data::WorkItem> items;
  for (int i = 0; i < n; ++i) {
    data::WorkItem item;
    item.id = "r";
    item.id += std::to_string(i);
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<std::size_t> dependents_of(const WorkGraph& graph, std::size_t index) {
  std::vector<std::size_t> out;
  for (std::size_t next : graph.dependents(index)) out.push_back(next);
  return out;
}

std::string problem_building(const std::vector<data::WorkItem>& items) {
  try {
    WorkGraph graph(items, "plan.json");
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "plan.json");
    return e.problem();
  }
  return "no error";
}

TEST(WorkGraph, DependentsComeInPlanOrderThenDependsOnOrder) {
  // Edges are added item by item in plan order, each item's depends_on in its own order, so
  // the sources appear interleaved: r0 <- r3, r2 <- r3, r2 <- r4, r0 <- r4, r1 <- r5, r0 <- r5,
  // r2 <- r5, r0 <- r5 (r5 names r0 twice: it waits for both).
  std::vector<data::WorkItem> items = items_named(6);
  items[3].depends_on = {"r0", "r2"};
  items[4].depends_on = {"r2", "r0"};
  items[5].depends_on = {"r1", "r0", "r2", "r0"};
  WorkGraph graph(items, "plan.json");
  ASSERT_EQ(graph.size(), 6u);
  EXPECT_EQ(dependents_of(graph, 0), (std::vector<std::size_t>{3, 4, 5, 5}));
  EXPECT_EQ(dependents_of(graph, 1), (std::vector<std::size_t>{5}));
  EXPECT_EQ(dependents_of(graph, 2), (std::vector<std::size_t>{3, 4, 5}));
  EXPECT_TRUE(dependents_of(graph, 3).empty());
  EXPECT_EQ(graph.predecessor_count(0), 0);
  EXPECT_EQ(graph.predecessor_count(3), 2);
  EXPECT_EQ(graph.predecessor_count(5), 4);
}

TEST(WorkGraph, ManyDependentsOfTwoItemsKeepPlanOrder) {
  // Enough edges sharing a source that an unstable grouping by source would shuffle them.
  std::vector<data::WorkItem> items = items_named(300);
  std::vector<std::size_t> expected;
  for (std::size_t i = 2; i < items.size(); ++i) {
    items[i].depends_on = i % 3 == 0 ? std::vector<std::string>{"r1", "r0"} : std::vector<std::string>{"r0", "r1"};
    expected.push_back(i);
  }
  WorkGraph graph(items, "plan.json");
  EXPECT_EQ(dependents_of(graph, 0), expected);
  EXPECT_EQ(dependents_of(graph, 1), expected);
  std::vector<std::size_t> copied(graph.dependents(1).begin(), graph.dependents(1).end());
  EXPECT_EQ(copied, expected);
}

TEST(WorkGraph, IndependentItemsHaveNoDependentsAndTheLongestIsTheCriticalPath) {
  std::vector<data::WorkItem> items = items_named(4);
  items[0].predicted = 5;
  items[1].predicted = 9;
  items[2].predicted = 9;
  items[3].predicted = 2;
  WorkGraph graph(items, "plan.json");
  ASSERT_EQ(graph.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(dependents_of(graph, i).empty());
    EXPECT_EQ(graph.predecessor_count(i), 0);
  }
  EXPECT_EQ(graph.critical_path(), 9);
  EXPECT_EQ(graph.critical_items(), (std::vector<std::size_t>{1}));
}

TEST(WorkGraph, EmptyPlanHasAnEmptyGraph) {
  WorkGraph graph(std::vector<data::WorkItem>{}, "plan.json");
  EXPECT_EQ(graph.size(), 0u);
  EXPECT_EQ(graph.critical_path(), 0);
  EXPECT_TRUE(graph.critical_items().empty());
}

TEST(WorkGraph, CriticalPathFollowsTheLongestChain) {
  std::vector<data::WorkItem> items = items_named(5);
  for (int i = 0; i < 5; ++i) items[i].predicted = 10 * (i + 1);
  items[4].depends_on = {"r1"};  // 20 + 50
  items[1].depends_on = {"r3"};  // 40 + 20 + 50 = 110
  items[2].depends_on = {"r0"};  // 10 + 30
  WorkGraph graph(items, "plan.json");
  EXPECT_EQ(graph.critical_path(), 110);
  EXPECT_EQ(graph.critical_items(), (std::vector<std::size_t>{3, 1, 4}));
}

// The bug it fixes: a recorded trace's bound ignored submit times (12,537,496 s shown where
// max(submit + duration) was 12,902,960 s).
TEST(WorkGraph, CriticalPathStartsNoItemBeforeItsSubmitTime) {
  std::vector<data::WorkItem> items = items_named(3);
  items[0].predicted = 100;                         // 0 + 100
  items[1].predicted = 10;
  items[1].submit_at = 500;                         // 500 + 10 = 510
  items[2].predicted = 20;
  items[2].depends_on = {"r1"};                     // 510 + 20 = 530
  EXPECT_EQ(WorkGraph(items, "plan.json").critical_path(), 530);
  items[2].depends_on.clear();
  items[2].submit_at = 515;                         // 515 + 20 = 535, independent items
  EXPECT_EQ(WorkGraph(items, "plan.json").critical_path(), 535);
}

// Other durations through the graph already built (a simulation's lower bound): the same
// longest path as a graph of items predicted to last those durations, computed by hand here.
TEST(WorkGraph, CriticalPathOfOtherDurationsUsesTheGraphAsBuilt) {
  std::vector<data::WorkItem> items = items_named(5);
  for (int i = 0; i < 5; ++i) items[i].predicted = 10 * (i + 1);
  items[4].depends_on = {"r1"};
  items[1].depends_on = {"r3"};
  items[2].depends_on = {"r0"};
  items[2].submit_at = 50;
  const WorkGraph graph(items, "plan.json");
  // r3 -> r1 -> r4: 1 + 2 + 3 = 6; r0 -> r2: r2 waits for its submit time 50, then 100.
  EXPECT_EQ(graph.critical_path(items, {7, 2, 100, 1, 3}), 150);
  // r3 -> r1 -> r4 is the longest with these: 40 + 30 + 20 = 90 (r0 -> r2: 50 + 1).
  EXPECT_EQ(graph.critical_path(items, {5, 30, 1, 40, 20}), 90);
  EXPECT_EQ(graph.critical_path(), 110);  // the predictions' path is unchanged
  std::vector<data::WorkItem> independent = items_named(3);
  independent[1].submit_at = 8;
  EXPECT_EQ(WorkGraph(independent, "plan.json").critical_path(independent, {9, 2, 4}), 10);
}

TEST(WorkGraph, DuplicateIdIsRejected) {
  std::vector<data::WorkItem> items = items_named(3);
  items[2].id = "r0";
  EXPECT_EQ(problem_building(items), "item id 'r0' appears twice");
}

TEST(WorkGraph, UnknownDependencyIsRejected) {
  std::vector<data::WorkItem> items = items_named(3);
  items[2].depends_on = {"r0", "verify"};
  EXPECT_EQ(problem_building(items), "item 'r2' depends on unknown item 'verify'");
}

TEST(WorkGraph, SelfDependencyIsACycle) {
  std::vector<data::WorkItem> items = items_named(3);
  items[1].depends_on = {"r0"};
  items[2].depends_on = {"r2"};
  EXPECT_EQ(problem_building(items), "dependency cycle: r2 -> r2");
}

TEST(WorkGraph, LongerCycleIsNamedBeforeASelfDependency) {
  std::vector<data::WorkItem> items = items_named(4);
  items[0].depends_on = {"r0"};
  items[2].depends_on = {"r3"};
  items[3].depends_on = {"r1", "r2"};
  EXPECT_EQ(problem_building(items), "dependency cycle: r2 -> r3 -> r2");
}

}  // namespace
}  // namespace millrace::scheduler
