// Resuming a Kubernetes run after its scheduler died (SIGKILL, a lost machine) or was stopped
// while the API was unreachable: the store has every attempt whose end was reported, but Jobs
// created just before the crash may still run, or have finished unseen, in the cluster. These
// functions turn them back into attempts in flight, so the resumed scheduler follows them to
// their end instead of running the items again (a duplicate) or forgetting them (a loss), and
// find the Jobs whose attempt already ended in the store but that still run, to delete them.
// This adoption is the Kubernetes form of `run --resume --leftovers wait` (what local leftovers
// get on request, run_ownership.h), and what every resumed Kubernetes run does.
#pragma once

#include <string>
#include <vector>

#include "cluster_adapter/kubernetes/kubernetes_cluster.h"
#include "data/records.h"
#include "scheduler/scheduler.h"

namespace millrace::cluster_adapter {

// Adds to `snapshot` (resume_snapshot() of the recorded attempts) one attempt in flight per
// unsettled item whose latest Job in `jobs` is an attempt newer than any the store recorded.
// Handles come from snapshot.next_handle on; `now` is their submission time.
void add_unrecorded_jobs(scheduler::SchedulerSnapshot& snapshot, const std::vector<ExistingJob>& jobs,
                         data::Micros now);

// Names of the run's Jobs still unfinished in `jobs` that are not an attempt in flight of
// `snapshot` (once add_unrecorded_jobs() has added those): attempts the store recorded as ended,
// such as a Ctrl-C's cancellations whose deletes never reached an unreachable API, and older
// attempts of an item. Left alone they would run on beside the resumed run's own attempts, over
// its concurrency cap; the resumed run deletes them (KubernetesCluster::delete_job).
std::vector<std::string> stale_jobs(const scheduler::SchedulerSnapshot& snapshot, const std::vector<ExistingJob>& jobs);

// Re-attaches every attempt in flight of `snapshot` to its Job with KubernetesCluster::adopt();
// `plan` is the scheduler's own (the submissions point into it).
void adopt_in_flight(KubernetesCluster& cluster, const scheduler::PlannedWork& plan,
                     const scheduler::SchedulerSnapshot& snapshot);

}  // namespace millrace::cluster_adapter
