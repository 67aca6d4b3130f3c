// Resuming a Kubernetes run after its scheduler died (SIGKILL, a lost machine): the store has
// every attempt whose end was reported, but Jobs created just before the crash may still run,
// or have finished unseen, in the cluster. These functions turn them back into attempts in
// flight, so the resumed scheduler follows them to their end instead of running the items again
// (a duplicate) or forgetting them (a loss).
#pragma once

#include <vector>

#include "cluster_adapter/kubernetes_cluster.h"
#include "data/records.h"
#include "scheduler/scheduler.h"

namespace millrace::cluster_adapter {

// Adds to `snapshot` (resume_snapshot() of the recorded attempts) one attempt in flight per
// unsettled item whose latest Job in `jobs` is an attempt newer than any the store recorded.
// Handles come from snapshot.next_handle on; `now` is their submission time.
void add_unrecorded_jobs(scheduler::SchedulerSnapshot& snapshot, const std::vector<ExistingJob>& jobs,
                         data::Micros now);

// Re-attaches every attempt in flight of `snapshot` to its Job with KubernetesCluster::adopt();
// `items` are the scheduler's own (the submissions point into them).
void adopt_in_flight(KubernetesCluster& cluster, const std::vector<data::WorkItem>& items,
                     const scheduler::SchedulerSnapshot& snapshot);

}  // namespace millrace::cluster_adapter
