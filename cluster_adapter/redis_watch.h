// Follows a live stellar-style run through its Redis queue (cluster_adapter/redis_queue.h) and
// records it in the trace store as it goes: each new line of the metrics set becomes an attempt
// of its range (ended when it was seen, started its recorded duration earlier; succeeded when
// the range is in `succeeded`, failed otherwise), and each in-progress range whose worker
// stopped heartbeating is re-queued (the job monitor's retry) and recorded as a failed attempt
// of that worker. Attempts already in the store are recognised on restart (by range, worker and
// duration), so a restarted watch neither loses nor duplicates them. Redis being down is
// reported and retried with backoff; it never ends the watch.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ostream>
#include <thread>
#include <map>
#include <set>
#include <string>

#include "cluster_adapter/redis_queue.h"
#include "data/error.h"
#include "data/trace_store.h"

namespace millrace::cluster_adapter {

struct WatchOptions {
  data::Micros poll = data::kMicrosPerSecond;            // between looks at the queue
  data::Micros backoff_first = 200 * data::kMicrosPerMilli;
  data::Micros backoff_max = 30 * data::kMicrosPerSecond;
};

// Calls `fn` until it returns without a Redis connection error: each failure is reported to
// `log` and followed by a wait that doubles from backoff_first up to backoff_max. Other errors
// pass through.
template <typename Fn>
auto retry_while_redis_down(const RedisQueue& queue, std::ostream& log, const WatchOptions& options, Fn&& fn) {
  for (data::Micros backoff = options.backoff_first;; backoff = std::min(options.backoff_max, backoff * 2)) {
    try {
      return fn();
    } catch (const data::Error& e) {
      if (e.input() != queue.server()) throw;
      log << "millrace: watch: " << e.what() << "; retrying in " << backoff / data::kMicrosPerMilli << " ms\n";
      std::this_thread::sleep_for(std::chrono::microseconds(backoff));
    }
  }
}

inline constexpr const char* kHeartbeatLost = "worker stopped heartbeating; range re-queued";

class RedisWatch {
 public:
  RedisWatch(RedisQueue& queue, data::TraceStore& store, std::int64_t run_id, std::ostream& log);

  // One look at the queue at wall-clock time `now`. Returns true when the run is over: nothing
  // remains or is in progress and every planned range succeeded or failed.
  bool step(data::Micros now);
  // Steps every options.poll until the run is over, then marks the run ended.
  void run(const WatchOptions& options);

  std::size_t recorded() const { return recorded_; }
  std::size_t requeued() const { return requeued_; }

 private:
  int next_number(const std::string& item);

  RedisQueue& queue_;
  data::TraceStore& store_;
  std::int64_t run_id_;
  std::ostream& log_;
  std::set<std::string> planned_;
  std::multiset<std::string> seen_;                  // "END/COUNT|worker|duration_us" of recorded lines
  std::map<std::string, int> attempts_;              // item -> attempts recorded
  std::map<std::string, int> succeeded_;             // item -> succeeded attempts recorded
  std::set<std::string> malformed_;                  // metrics lines reported once and skipped
  std::set<std::string> ever_beat_;                  // workers whose heartbeat key was seen
  std::map<std::string, data::Micros> held_since_;   // in-progress range -> first seen
  std::size_t recorded_ = 0;
  std::size_t requeued_ = 0;
};

// Wall-clock now, microseconds since the Unix epoch.
data::Micros wall_clock_now();

}  // namespace millrace::cluster_adapter
