// Re-attaching a resumed Kubernetes run: which Jobs found in the cluster become attempts in
// flight of the resumed scheduler.
#include "cluster_adapter/kubernetes/kubernetes_resume.h"

#include <gtest/gtest.h>

namespace millrace::cluster_adapter {
namespace {

using scheduler::ItemSnapshot;
using scheduler::ItemState;

TEST(KubernetesResume, OnlyTheLatestUnrecordedJobOfAnUnsettledItemBecomesAnAttemptInFlight) {
  scheduler::SchedulerSnapshot snapshot;
  snapshot.items = {
      ItemSnapshot{"r0", ItemState::kSucceeded, 1, 0},  // done: its Job is history
      ItemSnapshot{"r1", ItemState::kWaiting, 1, 0},    // attempt 1 recorded, attempt 2 still runs
      ItemSnapshot{"r2", ItemState::kWaiting, 0, 0},    // nothing recorded, attempt 1 runs
      ItemSnapshot{"r3", ItemState::kWaiting, 2, 0},    // attempt 2 recorded, its Job still listed
      ItemSnapshot{"r4", ItemState::kWaiting, 0, 0},    // no Job at all
  };
  snapshot.next_handle = 1;
  std::vector<ExistingJob> jobs = {
      {"j-r0-a1", "r0", 1, true, true},  {"j-r1-a1", "r1", 1, true, false}, {"j-r1-a2", "r1", 2, false, false},
      {"j-r2-a1", "r2", 1, true, true},  {"j-r3-a2", "r3", 2, true, false},
  };
  add_unrecorded_jobs(snapshot, jobs, 500);
  ASSERT_EQ(snapshot.in_flight.size(), 2u);
  EXPECT_EQ(snapshot.in_flight[0].item_id, "r1");
  EXPECT_EQ(snapshot.in_flight[0].attempt, 2);
  EXPECT_EQ(snapshot.in_flight[0].handle, 1u);
  EXPECT_EQ(snapshot.in_flight[0].submitted, 500);
  EXPECT_EQ(snapshot.in_flight[1].item_id, "r2");
  EXPECT_EQ(snapshot.in_flight[1].attempt, 1);
  EXPECT_EQ(snapshot.in_flight[1].handle, 2u);
  EXPECT_EQ(snapshot.next_handle, 3u);
  EXPECT_EQ(snapshot.items[1].attempts, 2);
  EXPECT_EQ(snapshot.items[3].attempts, 2);
}

TEST(KubernetesResume, UnfinishedJobsThatAreNoAttemptInFlightAreStaleTheInFlightOnesAreAdopted) {
  scheduler::SchedulerSnapshot snapshot;
  snapshot.items = {
      ItemSnapshot{"r0", ItemState::kWaiting, 1, 1},    // attempt 1 recorded cancelled; its Job still runs
      ItemSnapshot{"r1", ItemState::kWaiting, 1, 0},    // attempt 1 recorded failed, attempt 2 unrecorded
      ItemSnapshot{"r2", ItemState::kSucceeded, 1, 0},  // its finished Job is history, not stale
  };
  std::vector<ExistingJob> jobs = {
      {"j-r0-a1", "r0", 1, false, false},
      {"j-r1-a1", "r1", 1, false, false},  // an older attempt that somehow still runs
      {"j-r1-a2", "r1", 2, false, false},
      {"j-r2-a1", "r2", 1, true, true},
      {"pool", "", 0, false, false},       // not an attempt's Job
  };
  add_unrecorded_jobs(snapshot, jobs, 0);
  ASSERT_EQ(snapshot.in_flight.size(), 1u);
  EXPECT_EQ(snapshot.in_flight[0].item_id, "r1");
  EXPECT_EQ(stale_jobs(snapshot, jobs), (std::vector<std::string>{"j-r0-a1", "j-r1-a1"}));
}

}  // namespace
}  // namespace millrace::cluster_adapter
