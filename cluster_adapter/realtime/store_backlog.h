// The writes of a live run to its trace store, which must neither be lost nor stop the run
// when another process holds the store's write lock (an import, a second writer): each write is
// tried at once; when the store is busy (data::StoreBusy) it waits in memory, in order, and the
// run loop retries it with backoff (100 ms doubling to 5 s) until it is written. Any other
// failure drops that write and propagates as before. The store's own busy timeout should be short (the loop must not
// block long on it); drain() is for the end of a run and for setup, where waiting is right.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <iosfwd>

#include "data/trace_store.h"

namespace millrace::cluster_adapter {

class StoreBacklog {
 public:
  using Write = std::function<void(data::TraceStore&)>;

  // `notes`, when given, hears when the store turns busy and when the backlog is written.
  explicit StoreBacklog(data::TraceStore& store, std::ostream* notes = nullptr);

  // Queues `write` and tries the queue now (unless a retry is not due yet).
  void add(Write write);
  // Tries the queue if its backoff is over.
  void retry();
  // Blocks until every queued write is done, retrying with backoff.
  void drain();
  std::size_t pending() const { return queue_.size(); }
  data::TraceStore& store() { return store_; }

 private:
  using Clock = std::chrono::steady_clock;
  void flush();

  data::TraceStore& store_;
  std::ostream* notes_;
  std::deque<Write> queue_;
  Clock::time_point next_try_{};
  std::chrono::milliseconds backoff_{0};
};

}  // namespace millrace::cluster_adapter
