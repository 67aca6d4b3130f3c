// The simulated cluster on its own, driven through the Cluster seam with a recording listener:
// when a Job's pod is created, placed, started and freed (overheads, start-up, slots, API
// outages), a pool worker paying its start-up once, cancels, node losses, failures part-way,
// start-up samples drawn from the seeded generator, the slot-time it bills, and its settings
// checked with errors naming the setting.
#include "sim/sim_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

#include "data/error.h"
#include "tests/support/recording_listener.h"
#include "tests/support/work_items.h"

namespace millrace::sim {
namespace {

using test_support::RecordingListener;

class SimClusterTest : public ::testing::Test {
 protected:
  // Builds the cluster under test; each submitted item lasts the duration it was submitted with.
  SimCluster& make(SimClusterConfig config, std::uint64_t seed = 1) {
    rng_.seed(seed);
    cluster_.emplace(engine_, std::move(config), durations_, rng_, rng_, true);
    cluster_->set_listener(&listener_);
    return *cluster_;
  }
  static constexpr int kPlanItems = 4096;  // more than any test submits
  // Each submission is of the next item of the plan, lasting `duration`.
  scheduler::Submission job(scheduler::AttemptHandle handle, std::int64_t duration) {
    return on_worker(handle, duration, {}, scheduler::kNoLane);
  }
  scheduler::Submission on_worker(scheduler::AttemptHandle handle, std::int64_t duration,
                                  std::string_view worker, int lane) {
    durations_.push_back(duration);
    EXPECT_LE(durations_.size(), plan_.size()) << "more submissions than the test plan has items";
    return scheduler::Submission{handle, &plan_, static_cast<std::uint32_t>(durations_.size() - 1), 1,
                                 worker, lane};
  }
  void run(data::Micros until = INT64_MAX) {
    auto handle = [this](const SimEvent& event) { cluster_->handle(event); };
    engine_.run(handle, until);
  }
  // Runs one job of 1000 us on a cluster made of `config`; its failure (null if it did not fail).
  const test_support::RecordedEvent* fail_one_job(SimClusterConfig config, std::uint64_t seed) {
    make(std::move(config), seed).submit(job(1, 1000));
    run();
    return listener_.find("failed", 1);
  }
  data::Micros at(const std::string& kind, scheduler::AttemptHandle handle) const {
    const test_support::RecordedEvent* e = listener_.find(kind, handle);
    EXPECT_NE(e, nullptr) << kind << " " << handle;
    return e == nullptr ? -1 : e->event.at;
  }

  SimEngine engine_;
  std::mt19937_64 rng_;
  RecordingListener listener_;
  const scheduler::PlannedWork plan_{test_support::ranges(kPlanItems), "plan"};
  std::vector<data::Micros> durations_;  // of the items submitted so far, by position
  std::optional<SimCluster> cluster_;
};

TEST_F(SimClusterTest, AJobPaysCreationAndStartUpRunsItsDurationAndNamesItsSlot) {
  SimClusterConfig config;
  config.create_overhead = 2;
  config.startup.constant = 3;
  config.delete_overhead = 4;
  SimCluster& cluster = make(config);
  cluster.submit(job(1, 10));
  run();
  ASSERT_EQ(listener_.events.size(), 2u);
  EXPECT_EQ(at("started", 1), 5);
  EXPECT_EQ(listener_.events[0].event.worker, "node-000");
  EXPECT_EQ(at("succeeded", 1), 15);
  // The pod holds its slot from placement (2) until deleted (15 + 4).
  EXPECT_EQ(cluster.slot_time(), 17);
  EXPECT_EQ(cluster.capacity(), 1);
}

TEST_F(SimClusterTest, AJobWithoutAFreeSlotWaitsForTheDeletedPodsSlot) {
  SimClusterConfig config;
  config.startup.constant = 3;
  config.delete_overhead = 1;
  SimCluster& cluster = make(config);
  cluster.submit(job(1, 10));
  cluster.submit(job(2, 5));
  run();
  EXPECT_EQ(at("succeeded", 1), 13);
  EXPECT_EQ(at("started", 2), 13 + 1 + 3) << "placed when the first pod's slot is freed, then starts up";
  EXPECT_EQ(at("succeeded", 2), 22);
}

TEST_F(SimClusterTest, APoolWorkerStartsUpOnceAndRunsItsNextAttemptAtOnce) {
  SimClusterConfig config;
  config.startup.constant = 7;
  SimCluster& cluster = make(config);
  cluster.submit(on_worker(1, 10, "w000", 0));
  run();
  EXPECT_EQ(at("started", 1), 7);
  EXPECT_EQ(listener_.find("started", 1)->event.worker, "") << "the worker submitted to runs it";
  EXPECT_EQ(at("succeeded", 1), 17);
  cluster.submit(on_worker(2, 4, "w000", 0));
  run();
  EXPECT_EQ(at("started", 2), 17);
  EXPECT_EQ(at("succeeded", 2), 21);
}

TEST_F(SimClusterTest, ARetiredWorkerFreesItsSlotForAWaitingJob) {
  SimClusterConfig config;
  config.delete_overhead = 2;
  SimCluster& cluster = make(config);
  cluster.submit(on_worker(1, 10, "w000", 0));
  cluster.submit(job(2, 5));
  run();
  EXPECT_EQ(at("succeeded", 1), 10);
  EXPECT_EQ(listener_.find("started", 2), nullptr) << "the worker's pod still holds the only slot";
  cluster.retire_worker("w000");
  run();
  EXPECT_EQ(at("started", 2), 12);
  EXPECT_EQ(at("succeeded", 2), 17);
}

TEST_F(SimClusterTest, ACancelEndsTheAttemptAtOnceAsCancelled) {
  SimCluster& cluster = make(SimClusterConfig{});
  cluster.submit(job(1, 100));
  engine_.at(30, SimEvent{});  // a timer event the cluster ignores: moves the engine to 30
  run(30);
  cluster.cancel(1);
  cluster.cancel(99);  // unknown: nothing happens
  run();
  const test_support::RecordedEvent* failed = listener_.find("failed", 1);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.at, 30);
  EXPECT_EQ(failed->event.reason, "cancelled");
  EXPECT_EQ(listener_.finished(), 1);
}

TEST_F(SimClusterTest, ALostNodeFailsWhatRanOnItAndReportsTheCapacityLeft) {
  SimClusterConfig config;
  config.nodes = 3;
  config.node_losses = {NodeLoss{1, 20}};
  SimCluster& cluster = make(config);
  cluster.submit(job(1, 100));
  cluster.submit(job(2, 100));
  run();
  const test_support::RecordedEvent* lost = listener_.find("failed", 2);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->event.at, 20);
  EXPECT_EQ(lost->event.reason, "node-lost");
  EXPECT_EQ(lost->event.exit_code, -1);
  EXPECT_EQ(at("succeeded", 1), 100);
  EXPECT_EQ(listener_.capacities, std::vector<int>{2});
  EXPECT_EQ(cluster.capacity(), 2);
}

TEST_F(SimClusterTest, PodsAreCreatedOnlyOnceTheApiIsBack) {
  SimClusterConfig config;
  config.create_overhead = 1;
  config.api_down = {Window{0, 50}};
  SimCluster& cluster = make(config);
  cluster.submit(job(1, 10));
  run();
  EXPECT_EQ(at("started", 1), 51);
  EXPECT_EQ(at("succeeded", 1), 61);
}

TEST_F(SimClusterTest, FailuresComePartWayAndTheSeedDecidesThem) {
  SimClusterConfig config;
  config.fail_prob = 1;
  const test_support::RecordedEvent* failed = fail_one_job(config, 5);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.reason, "exit");
  EXPECT_EQ(failed->event.exit_code, 1);
  // The same two draws made independently: one decides the failure, the next where it falls.
  std::mt19937_64 reference(5);
  reference();
  auto fraction = static_cast<double>(reference() >> 11) * 0x1.0p-53;
  EXPECT_EQ(failed->event.at, static_cast<data::Micros>(fraction * 1000));
}

TEST_F(SimClusterTest, StartUpLatencyIsDrawnFromTheSamplesByTheSeed) {
  SimClusterConfig config;
  config.nodes = 4;
  config.startup.samples = {1, 2, 7};
  SimCluster& cluster = make(config, 11);
  for (scheduler::AttemptHandle h = 1; h <= 4; ++h) cluster.submit(job(h, 100));
  run();
  std::mt19937_64 reference(11);
  for (scheduler::AttemptHandle h = 1; h <= 4; ++h) {
    data::Micros expected = config.startup.samples[reference() % 3];
    EXPECT_EQ(at("started", h), expected) << "attempt " << h;
  }
}

// A fitted cluster whose every identified part is one constant (knots all equal): its draws are
// that constant whatever the generator gives.
std::shared_ptr<data::ClusterModel> fitted_constants(double placement, double startup, double gap) {
  auto m = std::make_shared<data::ClusterModel>();
  m->placement.pooled = data::EmpiricalQuantiles::of({placement});
  m->startup.pooled = data::EmpiricalQuantiles::of({startup});
  m->worker_gap.pooled = data::EmpiricalQuantiles::of({gap});
  m->failures.unidentified = "too few failures";
  return m;
}

TEST_F(SimClusterTest, AFittedClusterAddsItsPlacementDelayAndReplacesTheStartUp) {
  SimClusterConfig config;
  config.create_overhead = 2;
  config.startup.constant = 100;  // replaced by the fitted start-up
  config.fitted = fitted_constants(5, 3, 0);
  SimCluster& cluster = make(config);
  cluster.submit(job(1, 10));
  run();
  EXPECT_EQ(at("started", 1), 2 + 5 + 3);
  EXPECT_EQ(at("succeeded", 1), 20);
}

TEST_F(SimClusterTest, AFittedClusterWaitsTheGapBeforeEachItemAWorkerAlreadyUpStarts) {
  SimClusterConfig config;
  config.fitted = fitted_constants(1, 7, 4);
  SimCluster& cluster = make(config);
  cluster.submit(on_worker(1, 10, "w000", 0));
  run();
  EXPECT_EQ(at("started", 1), 1 + 7) << "the worker's pod waits the placement delay and starts up once";
  cluster.submit(on_worker(2, 4, "w000", 0));
  run();
  EXPECT_EQ(at("started", 2), 18 + 4);
}

TEST_F(SimClusterTest, FittedFailuresEndAttemptsWithTheirReasonCodeAndTiming) {
  SimClusterConfig config;
  auto m = std::make_shared<data::ClusterModel>();
  m->failures.pooled.attempts = 10;
  m->failures.pooled.modes.push_back({"oom", 137, 10, 1.0, data::EmpiricalQuantiles::of({0.25})});
  config.fitted = m;
  const test_support::RecordedEvent* failed = fail_one_job(config, 1);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->event.reason, "oom");
  EXPECT_EQ(failed->event.exit_code, 137);
  EXPECT_EQ(failed->event.at, 250);
}

TEST_F(SimClusterTest, AnUnidentifiedFittedPartLeavesTheTypedInValue) {
  SimClusterConfig config;
  config.startup.constant = 9;
  auto m = std::make_shared<data::ClusterModel>();
  m->startup.unidentified = "no phases recorded";
  m->startup.pooled = data::EmpiricalQuantiles::of({500});
  config.fitted = m;
  SimCluster& cluster = make(config);
  cluster.submit(job(1, 10));
  run();
  EXPECT_EQ(at("started", 1), 9);
}

TEST_F(SimClusterTest, TheTimelineListsEveryStepOfAnAttempt) {
  SimCluster& cluster = make(SimClusterConfig{});
  cluster.submit(job(1, 3));
  run();
  std::vector<std::string> kinds;
  for (const TimelineEntry& e : cluster.timeline()) kinds.push_back(to_string(e.kind));
  EXPECT_EQ(kinds, (std::vector<std::string>{"submitted", "placed", "started", "succeeded", "slot-freed"}));
}

// Each bad setting is refused with the setting and its value named.
// What a cluster reports (attempt events with their time and worker, then its timeline) for
// the same submissions, its starts due now queued as events or, with defer_due_starts(), run
// after each event as simulate() drives it: pool workers up, attempts of 0 and more, failures
// drawn part-way, and a due start cancelled before it runs (never started, as its event was).
std::vector<std::string> reports_of(bool defer) {
  SimEngine engine;
  std::mt19937_64 rng(5);
  const scheduler::PlannedWork plan(test_support::ranges(16), "plan");
  const std::vector<data::Micros> durations{10, 0, 7, 0, 7, 3, 0, 10, 4, 4, 0, 2};
  SimClusterConfig config;
  config.nodes = 2;
  config.startup.constant = 5;
  config.fail_prob = 0.4;
  SimCluster cluster(engine, config, durations, rng, rng, true);
  RecordingListener listener;
  cluster.set_listener(&listener);
  if (defer) cluster.defer_due_starts();
  auto run = [&] {
    cluster.run_due_starts();
    auto handle = [&](const SimEvent& event) {
      cluster.handle(event);
      cluster.run_due_starts();
    };
    engine.run(handle);
  };
  auto submit = [&](scheduler::AttemptHandle handle, int lane) {
    cluster.submit(scheduler::Submission{handle, &plan, static_cast<std::uint32_t>(handle - 1), 1,
                                         lane == 0 ? "w0" : "w1", lane});
  };
  submit(1, 0);
  submit(2, 1);
  run();  // both pods up: every later start is due at once
  for (scheduler::AttemptHandle h = 3; h <= 11; h += 2) {
    submit(h, 0);
    submit(h + 1, 1);
    if (h == 7) cluster.cancel(8);
    run();
  }
  std::vector<std::string> reports;
  for (const test_support::RecordedEvent& r : listener.events) {
    reports.push_back(r.kind + " " + std::to_string(r.event.handle) + " at " + std::to_string(r.event.at) + " " +
                      r.event.reason);
  }
  for (const TimelineEntry& e : cluster.timeline()) {
    reports.push_back(std::string(to_string(e.kind)) + " " + std::to_string(e.handle) + " at " +
                      std::to_string(e.at) + " slot " + std::to_string(e.slot));
  }
  reports.push_back("starts without an event: " + std::to_string(cluster.starts_without_event()));
  return reports;
}

TEST(SimClusterDueStarts, StartsRunAfterTheEventGiveWhatTheirEventsGave) {
  std::vector<std::string> queued = reports_of(false);
  std::vector<std::string> deferred = reports_of(true);
  ASSERT_EQ(queued.back(), "starts without an event: 0");
  // Attempts 3 to 12 but the cancelled 8 and 10, whose pod went with 8 and starts up again.
  EXPECT_EQ(deferred.back(), "starts without an event: 8");
  queued.pop_back();
  deferred.pop_back();
  EXPECT_EQ(deferred, queued);
  EXPECT_NE(std::find(queued.begin(), queued.end(), "failed 8 at 26 cancelled"), queued.end());
  EXPECT_EQ(std::count_if(queued.begin(), queued.end(), [](const std::string& r) { return r.starts_with("started 8"); }), 0);
  EXPECT_NE(std::find_if(queued.begin(), queued.end(), [](const std::string& r) { return r.ends_with(" exit"); }),
            queued.end()) << "some attempt fails part-way";
}

TEST(SimClusterSettings, BadSettingsAreErrorsNamingTheSetting) {
  struct Case {
    SimClusterConfig config;
    std::string named;
  };
  std::vector<Case> cases(7);
  cases[0].config.nodes = 0;
  cases[0].named = "0 nodes of 1 slot";
  cases[1].config.slots_per_node = 0;
  cases[1].named = "1 nodes of 0 slot";
  cases[2].config.fail_prob = 1.5;
  cases[2].named = "failure probability 1.5";
  cases[3].config.create_overhead = -4;
  cases[3].named = "create overhead -4 us";
  cases[4].config.node_losses = {NodeLoss{3, 10}};
  cases[4].named = "node loss names node 3 of 1";
  cases[5].config.api_down = {Window{50, 20}};
  cases[5].named = "API unavailability window 50-20 us";
  auto failing = std::make_shared<data::ClusterModel>();
  failing->failures.pooled.modes.push_back({"exit", 1, 5, 0.1, {}});
  cases[6].config.fitted = failing;
  cases[6].config.fail_prob = 0.2;
  cases[6].named = "a failure probability and fitted failures at once";
  for (const Case& c : cases) {
    SimEngine engine;
    std::mt19937_64 rng(1);
    try {
      const std::vector<data::Micros> no_durations;
      SimCluster cluster(engine, c.config, no_durations, rng, rng, false);
      ADD_FAILURE() << "no error for " << c.named;
    } catch (const data::Error& e) {
      EXPECT_EQ(e.input(), "simulated cluster");
      EXPECT_NE(e.problem().find(c.named), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace millrace::sim
