#include "sim/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "data/error.h"

namespace millrace::sim {
namespace {

std::vector<data::WorkItem> items_with(const std::vector<data::Micros>& durations) {
  std::vector<data::WorkItem> items;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    data::WorkItem item;
    item.id = std::string(1, static_cast<char>('A' + i));
    item.range = data::Range{static_cast<std::int64_t>(i) * 10, 10};
    items.push_back(item);
  }
  return items;
}

DurationModel model_of(const std::vector<data::Micros>& durations) {
  std::unordered_map<std::string, data::Micros> table;
  for (std::size_t i = 0; i < durations.size(); ++i) table[std::string(1, static_cast<char>('A' + i))] = durations[i];
  return table_model(table, "test");
}

SimulationConfig pool_config(int workers) {
  SimulationConfig config;
  config.cluster.nodes = workers;
  config.scheduler.params.workers = workers;
  return config;
}

std::map<std::string, std::string> worker_of(const SimulationResult& r) {
  std::map<std::string, std::string> out;
  for (const data::Attempt& a : r.attempt_log) out[a.item_id] = a.worker;
  return out;
}

TEST(Simulation, FiveItemsOnTwoWorkersGiveTheHandComputedSchedule) {
  std::vector<data::Micros> d{5, 3, 4, 2, 6};
  SimulationResult r = simulate(items_with(d), model_of(d), pool_config(2));
  // t=0 A->w000, B->w001; t=3 C->w001; t=5 D->w000; t=7 C ends first (scheduled first): E->w001.
  EXPECT_EQ(r.makespan, 13);
  EXPECT_EQ(worker_of(r), (std::map<std::string, std::string>{
                              {"A", "w000"}, {"B", "w001"}, {"C", "w001"}, {"D", "w000"}, {"E", "w001"}}));
  ASSERT_EQ(r.workers.size(), 2u);
  EXPECT_EQ(r.workers[0].busy, 7);
  EXPECT_EQ(r.workers[0].idle, 6);
  EXPECT_EQ(r.workers[1].busy, 13);
  EXPECT_DOUBLE_EQ(r.utilisation, 20.0 / 26.0);
  EXPECT_EQ(r.summary.tail.last_alone, 6);
}

// A recording made by a fixed pool taking ranges in plan order (each range to the first worker
// free) and its exact replay are the same schedule: the run summary of the recording and the
// simulation report the same straggler tail, to the microsecond.
TEST(Simulation, ARecordedRunAndItsExactReplayReportIdenticalTails) {
  std::vector<data::Micros> d;
  std::uint64_t x = 12345;
  for (int i = 0; i < 60; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    d.push_back(1000 + static_cast<data::Micros>((x >> 33) % 9000));
  }
  d.push_back(40000);  // a straggler at the end of the plan
  constexpr int kWorkers = 20;  // a peak of 20: the tail is where fewer than 2 run
  std::vector<data::WorkItem> items = items_with(d);
  std::vector<data::Attempt> recording;
  std::vector<data::Micros> free_at(kWorkers, 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto w = static_cast<std::size_t>(std::min_element(free_at.begin(), free_at.end()) - free_at.begin());
    recording.push_back(data::Attempt{items[i].id, 1, "recorded-" + std::to_string(w), free_at[w], free_at[w] + d[i],
                                      data::Outcome::kSucceeded, 0, "", std::nullopt, std::nullopt, std::nullopt, ""});
    free_at[w] += d[i];
  }
  data::RunSummary recorded = data::summarize(items, recording);
  SimulationResult replay = simulate(items, model_of(d), pool_config(kWorkers));
  ASSERT_EQ(replay.makespan, recorded.makespan);
  EXPECT_GT(recorded.tail.below_tenth, 0);
  EXPECT_EQ(replay.summary.tail.below_tenth, recorded.tail.below_tenth);
  EXPECT_EQ(replay.summary.tail.last_alone, recorded.tail.last_alone);
  EXPECT_EQ(replay.summary.tail.utilisation_last_tenth, recorded.tail.utilisation_last_tenth);
}

TEST(Simulation, LongestFirstBeatsPlanOrderWhenTheLongItemComesLast) {
  std::vector<data::Micros> d{1, 1, 1, 1, 4};
  SimulationConfig config = pool_config(2);
  config.predict_from_durations = true;
  SimulationResult plan = simulate(items_with(d), model_of(d), config);
  config.scheduler.order = scheduler::QueueOrder::kLongestFirst;
  SimulationResult lpt = simulate(items_with(d), model_of(d), config);
  EXPECT_EQ(plan.makespan, 6);
  EXPECT_EQ(lpt.makespan, 4);
  EXPECT_EQ(lpt.critical_path, 4);
}

TEST(Simulation, JobPerItemNeverExceedsKInFlightAtAnyEvent) {
  std::vector<data::Micros> d;
  for (int i = 0; i < 26; ++i) d.push_back(1 + (i * 7) % 5);
  SimulationConfig config;
  config.cluster.nodes = 10;
  config.cluster.fail_prob = 0.2;
  config.cluster.startup.constant = 1;
  config.scheduler.policy = "job-per-item";
  config.scheduler.params.max_in_flight = 3;
  config.scheduler.retry.max_attempts = 20;
  config.record_timeline = true;
  SimulationResult r = simulate(items_with(d), model_of(d), config);
  int in_flight = 0;
  int peak = 0;
  for (const TimelineEntry& e : r.timeline) {
    if (e.kind == TimelineEntry::Kind::kSubmitted) ++in_flight;
    if (e.kind == TimelineEntry::Kind::kSucceeded || e.kind == TimelineEntry::Kind::kFailed) --in_flight;
    ASSERT_LE(in_flight, 3) << "at " << e.at;
    peak = std::max(peak, in_flight);
  }
  EXPECT_EQ(peak, 3);
  EXPECT_EQ(r.succeeded, 26u);
}

TEST(Simulation, RetriesRerunExactlyTheFailedItems) {
  std::vector<data::Micros> d(26, 100);
  SimulationConfig config = pool_config(4);
  config.cluster.fail_prob = 0.3;
  config.scheduler.retry.max_attempts = 50;
  SimulationResult r = simulate(items_with(d), model_of(d), config);
  std::map<std::string, std::vector<const data::Attempt*>> by_item;
  for (const data::Attempt& a : r.attempt_log) by_item[a.item_id].push_back(&a);
  std::size_t failed = 0;
  for (const auto& [id, attempts] : by_item) {
    for (std::size_t k = 0; k < attempts.size(); ++k) {
      EXPECT_EQ(attempts[k]->number, static_cast<int>(k + 1)) << id;
      bool last = k + 1 == attempts.size();
      EXPECT_EQ(attempts[k]->outcome, last ? data::Outcome::kSucceeded : data::Outcome::kFailed) << id;
      if (!last) ++failed;
    }
  }
  EXPECT_EQ(by_item.size(), 26u);
  EXPECT_GT(failed, 0u);
  EXPECT_EQ(r.summary.failed_attempts, failed);
  EXPECT_EQ(r.summary.attempts, 26u + failed);
}

TEST(Simulation, DependencyStartsOnlyAfterItsPredecessorsEnd) {
  std::vector<data::Micros> d{5, 3, 4};
  std::vector<data::WorkItem> items = items_with(d);
  items[0].depends_on = {"B", "C"};
  SimulationResult r = simulate(items, model_of(d), pool_config(3));
  std::map<std::string, data::Attempt> by_id;
  for (const data::Attempt& a : r.attempt_log) by_id[a.item_id] = a;
  EXPECT_GE(by_id["A"].start, by_id["B"].end);
  EXPECT_GE(by_id["A"].start, by_id["C"].end);
  EXPECT_EQ(r.makespan, 9);
}

TEST(Simulation, EqualSeedsGiveByteIdenticalJsonAndDifferentSeedsDiffer) {
  std::vector<data::Micros> d;
  for (int i = 0; i < 20; ++i) d.push_back(100 + i * 13);
  SimulationConfig config = pool_config(3);
  config.cluster.fail_prob = 0.25;
  config.cluster.startup.samples = {5, 10, 40};
  config.record_timeline = true;
  config.seed = 7;
  std::string a = to_json(simulate(items_with(d), model_of(d), config), true).dump();
  std::string b = to_json(simulate(items_with(d), model_of(d), config), true).dump();
  config.seed = 8;
  std::string c = to_json(simulate(items_with(d), model_of(d), config), true).dump();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Simulation, PoolWorkersPayStartUpOnceAndJobsPayItPerAttempt) {
  std::vector<data::Micros> d{10, 10, 10, 10};
  SimulationConfig config = pool_config(2);
  config.cluster.startup.constant = 100;
  EXPECT_EQ(simulate(items_with(d), model_of(d), config).makespan, 120);
  config.scheduler.policy = "job-per-item";
  config.scheduler.params.max_in_flight = 2;
  config.cluster.create_overhead = 1;
  EXPECT_EQ(simulate(items_with(d), model_of(d), config).makespan, 222);
}

TEST(Simulation, NodeLossFailsItsAttemptAndPartialPoolFinishesOnTheRest) {
  std::vector<data::Micros> d{100, 100, 100, 100};
  SimulationConfig config = pool_config(2);
  config.scheduler.policy = "partial";
  config.cluster.node_losses = {{0, 50}};
  SimulationResult r = simulate(items_with(d), model_of(d), config);
  EXPECT_FALSE(r.stalled);
  EXPECT_EQ(r.succeeded, 4u);
  EXPECT_EQ(r.summary.failed_attempts, 1u);
  auto lost = std::find_if(r.attempt_log.begin(), r.attempt_log.end(),
                           [](const data::Attempt& a) { return a.outcome == data::Outcome::kFailed; });
  EXPECT_EQ(lost->failure_reason, "node-lost");
  EXPECT_EQ(lost->item_id, "A");
  // One slot left from t=50: B ends at 100, then A, C and D one after the other.
  EXPECT_EQ(r.makespan, 400);
}

TEST(Simulation, FixedPoolWorkerLostWithItsNodeComesBackOnTheSlotAnIdleWorkerFrees) {
  std::vector<data::Micros> d{100, 100, 100, 100};
  SimulationConfig config = pool_config(2);
  config.cluster.node_losses = {{0, 50}};
  SimulationResult r = simulate(items_with(d), model_of(d), config);
  // w000's pod is lost with A at 50 and waits for a slot; w001 runs B, C, D, and once nothing is
  // queued it is retired (t=300), freeing the slot where w000 comes back to retry A.
  EXPECT_FALSE(r.stalled);
  EXPECT_EQ(r.succeeded, 4u);
  EXPECT_EQ(r.makespan, 400);
  const data::Attempt& last = r.attempt_log.back();
  EXPECT_EQ(last.item_id, "A");
  EXPECT_EQ(last.number, 2);
  EXPECT_EQ(last.worker, "w000");
  EXPECT_EQ(last.start, 300);
}

TEST(Simulation, ApiUnavailabilityDelaysPodCreation) {
  std::vector<data::Micros> d{10};
  SimulationConfig config = pool_config(1);
  config.cluster.api_down = {{0, 40}};
  EXPECT_EQ(simulate(items_with(d), model_of(d), config).makespan, 50);
}

TEST(Simulation, AutoscaleGrowsAfterTheScaleUpDelayToMeetTheDeadline) {
  std::vector<data::Micros> d(8, 100);
  SimulationConfig config = pool_config(8);
  config.predict_from_durations = true;
  config.scheduler.policy = "autoscale";
  config.scheduler.params.min_workers = 1;
  config.scheduler.params.deadline = 200;
  config.scheduler.params.scale_up_delay = 10;
  SimulationResult r = simulate(items_with(d), model_of(d), config);
  // t=0: one worker; t=10: ceil(800 / 190) = 5 workers; t=110: the last two items on two of them.
  EXPECT_EQ(r.workers.size(), 5u);
  EXPECT_EQ(r.makespan, 210);
}

// The replicas of a comparison share one plan and its graph: each simulation of it gives what a
// simulation of its own copy gives, and leaves it as it was for the next.
TEST(Simulation, ASharedPlanSimulatesAsItsOwnCopyDoes) {
  std::vector<data::Micros> d{5, 3, 4, 2, 6, 9, 1};
  std::vector<data::WorkItem> items = items_with(d);
  items[4].depends_on = {"B"};
  SimulationConfig config = pool_config(3);
  config.cluster.fail_prob = 0.3;
  auto shared = std::make_shared<const scheduler::PlannedWork>(items, "plan");
  for (std::uint64_t seed : {1u, 2u, 1u}) {
    config.seed = seed;
    const SimulationResult own = simulate(items, model_of(d), config);
    const SimulationResult replica = simulate(shared, d, config);
    EXPECT_EQ(to_json(replica, false), to_json(own, false)) << "seed " << seed;
    EXPECT_EQ(replica.attempt_log, own.attempt_log) << "seed " << seed;
  }
  EXPECT_EQ(shared->items(), items);
  EXPECT_THROW(simulate(shared, {1, 2}, config), data::Error);  // a duration per item
}

TEST(Simulation, BadClusterSettingsAreErrorsNamingTheSetting) {
  std::vector<data::Micros> d{1};
  SimulationConfig config = pool_config(1);
  config.cluster.fail_prob = 1.5;
  try {
    simulate(items_with(d), model_of(d), config);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("failure probability"), std::string::npos);
  }
}

TEST(Simulation, RecordedDurationsUseTheLastSucceededAttempt) {
  std::vector<data::WorkItem> items = items_with({0, 0});
  std::vector<data::Attempt> attempts(3);
  attempts[0] = {"A", 1, "w", 0, 50, data::Outcome::kFailed, 1, "exit", std::nullopt, std::nullopt, std::nullopt, ""};
  attempts[1] = {"A", 2, "w", 50, 80, data::Outcome::kSucceeded, 0, "", std::nullopt, std::nullopt, std::nullopt, ""};
  attempts[2] = {"B", 1, "w", 0, 7, data::Outcome::kSucceeded, 0, "", std::nullopt, std::nullopt, std::nullopt, ""};
  auto table = recorded_durations(items, attempts, "run 3");
  EXPECT_EQ(table["A"], 30);
  EXPECT_EQ(table["B"], 7);
  attempts.pop_back();
  EXPECT_THROW(recorded_durations(items, attempts, "run 3"), data::Error);
}

}  // namespace
}  // namespace millrace::sim
