// A fixed pool of threads running the tasks of several comparisons at once (sim/comparison.h's
// ComparisonRun), so that the last slow tasks of one comparison (the optimal partition, the
// slowest replica) do not leave a core idle while another comparison could use it. A plan's
// search (sim/capacity_plan.h) asks one worker or node count at a time; with this pool the
// counts it will certainly ask later and those it may ask next run beside the one it waits for.
//
// Each comparison is queued under a key (the caller's name for it: a count) with a rank; a free
// thread takes the next ready task of the lowest-ranked comparison that has one (equal ranks: the
// first queued). A comparison is made when its first task is taken, and frees its plans when its
// last task ends (or when it is dropped and its running tasks end), so only those in progress
// hold memory: a comparison is made only while fewer than threads + 1 are, or when it is the
// first in rank, so at most most_in_progress(threads) at once. The results of a comparison do not
// depend on the pool (each simulation is seeded by what it is: sim/comparison.h), only when it
// is done does.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sim/comparison.h"

namespace millrace::sim {

class SweepPool {
 public:
  using MakeRun = std::function<std::unique_ptr<ComparisonRun>()>;

  explicit SweepPool(unsigned threads);
  // At most how many comparisons hold their plans at once (for a memory check before starting).
  static std::size_t most_in_progress(unsigned threads) { return std::max(1u, threads) + 2; }
  // Drops what has not started, waits for the tasks running, joins the threads.
  ~SweepPool();
  SweepPool(const SweepPool&) = delete;
  SweepPool& operator=(const SweepPool&) = delete;

  // Queues the comparison `key`, made by `make` on the thread that takes its first task (what
  // that throws is the comparison's error). When `key` is queued already, only its rank changes.
  void queue(int key, long rank, MakeRun make);
  // Whether `key` is queued (running, waiting or done) and not dropped.
  bool queued(int key) const;
  // Forgets `key`: its tasks not started never start, those running end unseen.
  void drop(int key);
  // Waits until the queued comparison `key` is done: its rows, or rethrows its error.
  Comparison wait(int key);

 private:
  struct Entry {
    long rank = 0;
    std::size_t order = 0;  // when queued, for equal ranks
    MakeRun make;
    std::shared_ptr<ComparisonRun> run;  // its deleter counts it out of holding_
    bool busy = false;     // a thread is making or finishing `run`: no task to take
    bool dropped = false;  // forgotten: ends unseen
    bool done = false;
    std::optional<Comparison> result;
    std::exception_ptr error;
  };
  // What a free thread does next: make an entry's run, or run one of its tasks.
  struct Work {
    std::shared_ptr<Entry> entry;
    std::optional<std::size_t> task;  // none: make the run
  };

  void serve();
  std::optional<Work> next_work();  // under lock_
  // These three are called and return under `lock`, which they release while they work.
  void make(Entry& entry, std::unique_lock<std::mutex>& lock);
  void run_task(Entry& entry, std::size_t task, std::unique_lock<std::mutex>& lock);
  void finish(Entry& entry, std::unique_lock<std::mutex>& lock);

  const std::size_t made_at_most_;  // made while fewer are held (the first in rank: always)
  std::atomic<std::size_t> holding_{0};  // runs made or being made, not yet freed
  mutable std::mutex lock_;
  std::condition_variable work_changed_;
  std::map<int, std::shared_ptr<Entry>> entries_;
  std::size_t queued_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace millrace::sim
