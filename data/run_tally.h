// A run's summary (data::RunSummary) gathered attempt by attempt, instead of from a log of every
// attempt afterwards. A simulation tallies its attempts as they start and end, in time order,
// sweeping the busy profile as it goes (data/busy_sweep.h): a run of 10^7 ranges then holds a
// few bytes per item for its summary, not its attempts. A recording's attempts, in any order,
// are tallied without the sweep and their profile is sorted out afterwards (summarize()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "data/busy_sweep.h"
#include "data/run_summary.h"

namespace millrace::data {

class RunTally {
 public:
  // The busy profiles swept as the attempts come (started() and ended() then in time order):
  // none (the caller gives the profile to summary()), the workers' (the summary's tail), or the
  // workers' and every attempt's (on node pools the tail is a share of the pods at once).
  enum class Sweep : std::uint8_t { kNone, kWorkers, kWorkersAndPods };
  static constexpr Micros kNotStarted = -1;

  // A run of `items` planned items (an attempt of an item at or past it is not of the plan);
  // keeps the `longest` longest attempts. The sweeps drop what the last tenth of the run cannot
  // need every `forget_every` attempts (a test drops at every one, at the exact bound).
  RunTally(std::size_t items, std::size_t longest, Sweep sweep, std::size_t forget_every = 4096);

  // An attempt started at `at`, on a worker of the summary (a named one) or not. Only with a
  // sweep; the time of every call never before the last one's.
  void started(Micros at, bool on_worker);
  // An attempt ended, the span's worker being kNoWorker when not on a named worker.
  // `start_reported`: started() was called for it (with a sweep, every attempt that lasted must
  // have been: an attempt that lasted but whose start was never reported throws std::logic_error).
  void ended(const AttemptSpan& span, bool start_reported);

  std::size_t attempts() const { return attempts_; }
  Micros last_end() const { return last_end_; }
  // The workers (as numbered in the spans) that ran attempts: busy time and attempts each.
  std::size_t worker_slots() const { return workers_.size(); }
  Micros worker_busy(std::size_t worker) const { return workers_[worker].busy; }
  std::size_t worker_attempts(std::size_t worker) const { return workers_[worker].attempts; }
  // The longest attempts, longest first (ties: the earlier start, then the lower item, worker and
  // position), each with its position in the order the attempts ended.
  const std::vector<std::pair<AttemptSpan, std::size_t>>& longest() const { return longest_; }
  // Each planned item's first start, kNotStarted when it has none.
  const std::vector<Micros>& first_starts() const { return first_starts_; }
  std::vector<Micros> take_first_starts() { return std::move(first_starts_); }

  // The summary but the longest attempts themselves and the recorded work time (left 0: a span
  // carries neither); its tail is of `workers_profile` (the named workers' attempts that lasted).
  RunSummary summary(const BusySweep& workers_profile) const;
  // With a sweep: the summary, its tail from the workers' profile swept.
  RunSummary summary() const { return summary(workers_sweep_); }
  // With Sweep::kWorkersAndPods: the tail of every attempt that lasted, as a share of the most
  // running at once, over their own span.
  StragglerTail pods_tail() const;

 private:
  // A worker's figures side by side: an attempt's end touches one cache line of them, not two.
  struct WorkerTally {
    Micros busy = 0;
    std::size_t attempts = 0;
  };

  [[gnu::noinline]] void keep_if_longest(const AttemptSpan& span, std::size_t position);
  void forget_early();  // what no tail will read, every so many attempts

  std::size_t items_;
  std::size_t longest_count_;
  Sweep sweep_;
  std::size_t attempts_ = 0;
  std::size_t failed_attempts_ = 0;
  std::size_t succeeded_items_ = 0;
  Micros total_work_ = 0;
  Micros first_start_ = 0, last_end_ = 0;  // over every attempt
  std::vector<WorkerTally> workers_;
  std::vector<std::pair<AttemptSpan, std::size_t>> longest_;
  std::vector<Micros> first_starts_;
  std::vector<std::uint8_t> succeeded_;    // bytes, not bits: set per attempt
  BusySweep workers_sweep_;
  BusySweep pods_sweep_;
  bool any_reported_ = false;
  Micros first_reported_ = 0;              // the earliest start reported (the first)
  Micros pods_first_start_ = 0, pods_last_end_ = 0;  // over the attempts that lasted
  bool any_lasted_ = false;
  std::size_t forget_every_;
  std::size_t since_forget_ = 0;
};

}  // namespace millrace::data
