// The writes of a live run to its trace store, which must neither be lost nor stop the run
// when another process holds the store's write lock (an import, a second writer): each write is
// tried at once; when the store is busy (data::StoreBusy) it waits in memory, in order, and the
// run loop retries it with backoff (100 ms doubling to 5 s) until it is written. Any other
// failure drops that write and propagates as before. The store's own busy timeout should be short (the loop must not
// block long on it); drain() is for the end of a run and for setup, where waiting is right.
// state() tells how far behind the store is (for GET /status and /metrics: backlog_status.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <iosfwd>
#include <string>

#include "data/trace_store.h"

namespace millrace::cluster_adapter {

// What waits in memory for the store.
struct BacklogState {
  std::size_t writes = 0;         // queued writes
  std::int64_t attempts = 0;      // finished attempts among them
  data::Micros oldest_age = 0;    // how long the oldest queued write has waited (0: none)
  std::string last_error;         // the store's last busy error, redacted ("" when there was none)
};

class StoreBacklog {
 public:
  using Write = std::function<void(data::TraceStore&)>;

  // `notes`, when given, hears when the store turns busy and when the backlog is written.
  explicit StoreBacklog(data::TraceStore& store, std::ostream* notes = nullptr);

  // Queues `write`, which records `attempts` finished attempts, and tries the queue now
  // (unless a retry is not due yet).
  void add(Write write, int attempts = 0);
  // Tries the queue if its backoff is over.
  void retry();
  // Blocks until every queued write is done, retrying with backoff.
  void drain();
  std::size_t pending() const { return queue_.size(); }
  BacklogState state() const;
  data::TraceStore& store() { return store_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Queued {
    Write write;
    int attempts = 0;
    Clock::time_point since;
  };
  void flush();

  data::TraceStore& store_;
  std::ostream* notes_;
  std::deque<Queued> queue_;
  std::int64_t queued_attempts_ = 0;
  std::string last_error_;
  Clock::time_point next_try_{};
  std::chrono::milliseconds backoff_{0};
};

}  // namespace millrace::cluster_adapter
