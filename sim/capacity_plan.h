// Capacity planning by simulation (sim/comparison.h). Two questions, one search:
//  - workers: the fewest workers (and the partition) meeting the target, and the cost curve of
//    workers vs makespan vs node-hours;
//  - pool nodes (`node_pool` set): for a job-per-item deployment replayed from a recording (its
//    items' requests, types, submit times and recorded durations), the fewest nodes of one node
//    pool (its max, sim/node_pools.h) meeting the target, and the cost curve of nodes vs
//    makespan vs waits vs node-hours. The concurrency caps on that many nodes are
//    sim/cap_search.h's.
// The target: a deadline on the makespan and/or ceilings on the items' queue-wait percentiles
// (submit -> start); a replica meets it when its run neither failed (an item out of attempts)
// nor stalled and it meets every one, and a count meets it when a
// share `confidence` of its replicas does (each replica with its own seed: failure injection,
// start-up samples and, for partitions, durations drawn from the model's noise).
//
// Search: binary search over [min, max] on "meets the target" (for workers: one search per
// candidate, partitioner and queue order, on its own rows, so that its answer does not depend on
// what else is listed; the answer is the fewest of theirs), which assumes meeting it is monotone in the count. That is not guaranteed
// (list-scheduling anomalies, `optimal` choosing its range count per worker count, placement
// on nodes), so the answer N is checked against N - 1, and while N - 1 also meets the target the
// search walks down; `monotone` reports whether the evaluated curve's best mean makespan (and,
// for nodes, wait p90) never rose with the count (sim/fewest_meeting.h). Cost: O(log max)
// comparisons plus the curve's points (powers of two up to max, and the answer).
//
// On several threads (spec.threads) the counts run in one pool (sim/sweep_pool.h): beside the
// count the search waits for, first the curve's counts (certainly asked later), then the counts
// it may ask in its next steps, whatever the answers; those no longer reachable are dropped. The
// answer holds only the counts the search asks, so it is the same, byte for byte, on any thread
// count; what more threads cost is the simulations of counts foreseen and never asked. Fanned
// out over a worker pool (spec.elsewhere), the count the search waits for goes to the pool in
// one batch with the curve's counts and, while the pool has workers to spare, those it may ask
// next (sim/lookahead_batches.h); the answer is again the same, byte for byte.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/comparison.h"

namespace millrace::sim {

// Ceilings on the queue-wait percentiles of a replica (unset: none).
struct WaitTargets {
  std::optional<data::Micros> p50, p90, p99;
  bool any() const { return p50 || p90 || p99; }
};

struct CapacityQuestion {
  ComparisonSpec spec;          // workers: its worker counts are ignored; recorded rows are not searched
  data::Micros deadline = 0;    // 0: none (a wait target is then needed)
  WaitTargets waits;
  double confidence = 0.9;
  int min_workers = 1;
  int max_workers = 1;
  // When the search first asks for a count, workers or nodes, in the order it asks them (the
  // count's simulations, some perhaps run ahead, are told to spec.progress while it waits).
  std::function<void(int count)> evaluating;
  // Pool nodes: the pool of spec.base.cluster.pools whose size is searched in [min_nodes,
  // max_nodes], replaying spec.recorded_items under the cap spec.workers[0] (none given: the
  // items' count, no cap) and the type limits of spec.base.scheduler.params.
  std::optional<std::size_t> node_pool;
  int min_nodes = 1;
  int max_nodes = 1;
};

// One candidate's own answer to a workers question (its own search, whatever else is listed).
struct CandidateFewest {
  std::string partitioner;  // or ranges file
  std::string order;
  int count = 0;            // fewest workers meeting the target
};

struct CapacityAnswer {
  // Fewest workers (nodes) meeting the target: for workers, the fewest of the candidates' own
  // answers (by_candidate) and the best of the candidates with it there.
  std::optional<ComparisonRow> best;
  std::vector<CandidateFewest> by_candidate;  // workers: each candidate meeting the target at the most
  ComparisonRow best_at_max;          // what the maximum achieves (for the message when unmet)
  Comparison evaluated;               // every row simulated, by count then partitioner
  std::vector<ComparisonRow> curve;   // the best row per evaluated count, by count
  bool monotone = true;
};

// Throws data::Error naming the option for a missing target, a non-positive deadline,
// confidence outside (0, 1], bad count bounds, and for pool nodes a missing recorded run or pool;
// and whatever run_comparison throws.
CapacityAnswer plan_capacity(const CapacityQuestion& question);

// What follows is shared with sim/cap_search.h, sim/pool_mix.h and sim/cheapest_plan.h.

// The comparison plan_capacity makes of a count: workers, or nodes of the question's pool.
ComparisonSpec count_comparison(const CapacityQuestion& question, int count);
// The counts plan_capacity asks whatever the answers: the largest, then the curve's powers of two
// from the smallest up.
std::vector<int> certain_counts(const CapacityQuestion& question);

// "makespan <= 4h, wait p90 <= 30m"
std::string target_text(const CapacityQuestion& question);

// Sets row.deadline_met to the share of its replicas meeting the question's target.
void judge(const CapacityQuestion& question, ComparisonRow& row);
bool meets(const CapacityQuestion& question, const ComparisonRow& judged);

// The best of judged rows: the highest share meeting the target, then the lowest mean makespan,
// then the fewest node-hours.
const ComparisonRow& best_row(const std::vector<ComparisonRow>& judged);

// A pool sized to `nodes` (at least 1): a pool of fixed size (count = max) keeps count = min =
// max = nodes; an autoscaled one gets max = nodes, its count and min at most that.
NodePool pool_sized(NodePool pool, int nodes);

// The cap on pods at once of a pool question: spec.workers[0], else the recorded items' count.
int pod_cap(const CapacityQuestion& question);

// The comparison of the pool question's recording on `nodes` nodes of its pool (pool_sized) under
// a total cap and type limits.
ComparisonSpec spec_on_pool(const CapacityQuestion& question, int nodes, int cap,
                            const std::map<std::string, int>& type_limits);

// That comparison simulated (or sent elsewhere: spec.elsewhere), judged (the best queue order's
// row, `nodes` set).
ComparisonRow replay_on_pool(const CapacityQuestion& question, int nodes, int cap,
                             const std::map<std::string, int>& type_limits);

}  // namespace millrace::sim
