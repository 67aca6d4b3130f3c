// Follows a live stellar-style run through its Redis queue (cluster_adapter/redis/redis_queue.h) and
// records it in the trace store as it goes: each new line of the metrics set becomes an attempt
// of its range (ended when it was seen, started its recorded duration earlier) once the lists say
// how it ended: succeeded when the range is in `succeeded`, failed when in `failed` (a worker may
// write its metrics line before it marks the range; until then the line waits). A duration that
// would start the attempt before 1970 (the Unix epoch) is refused, the line reported and skipped. A range listed in `succeeded` or `failed` that no metrics line explains
// is recorded when the rest of the run is over, from when it was seen held. The run is over when
// nothing waits or is held and every planned range is accounted for (succeeded, or listed in
// `succeeded` or `failed`). Planned ranges that did not succeed and are in no list (the queue
// lost them: Redis restarted without persistence) are reported with the command that pushes
// them back (`push --resume RUN`), and waited for. Each in-progress range whose worker
// stopped heartbeating is re-queued (the job monitor's retry) and recorded as a failed attempt
// of that worker. Attempts already in the store are recognised on restart (by range, worker and
// duration), so a restarted watch neither loses nor duplicates them; which workers were seen
// heartbeating and since when each range is held are saved in the store every step
// (watch_state.h), so a restarted watch still re-queues the ranges of workers that stopped while
// it was down, and dates their failed attempts from when they were taken. Redis being down is
// reported and retried with backoff; it never ends the watch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <thread>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster_adapter/realtime/backoff.h"
#include "cluster_adapter/redis/redis_queue.h"
#include "cluster_adapter/redis/watch_state.h"
#include "data/error.h"
#include "data/trace_store.h"

namespace millrace::cluster_adapter {

struct WatchOptions {
  data::Micros poll = data::kMicrosPerSecond;  // between looks at the queue
  // Waits while Redis is down; max_attempts is not used: Redis being down never ends a watch.
  BackoffPolicy backoff{.initial = 200 * data::kMicrosPerMilli, .max = 30 * data::kMicrosPerSecond};
};

// Calls `fn` until it returns without a Redis connection error: each failure is reported to
// `log` and followed by the policy's next wait (cluster_adapter/realtime/backoff.h). Other errors pass
// through.
template <typename Fn>
auto retry_while_redis_down(const RedisQueue& queue, std::ostream& log, const BackoffPolicy& policy, Fn&& fn) {
  for (Backoff backoff(policy);;) {
    try {
      return fn();
    } catch (const data::Error& e) {
      if (e.input() != queue.server()) throw;
      const data::Micros delay = backoff.next_delay();
      log << "millrace: watch: " << e.what() << "; retrying in " << delay / data::kMicrosPerMilli << " ms\n";
      std::this_thread::sleep_for(std::chrono::microseconds(delay));
    }
  }
}

inline constexpr const char* kHeartbeatLost = "worker stopped heartbeating; range re-queued";

// What one step of a watch saw and did, for whoever reports the run (watch_report.h).
struct WatchStep {
  data::Micros now = 0;
  const QueueSnapshot& queue;
  const WatchState& state;                      // heartbeats, and who holds which range since when
  const std::vector<data::Attempt>& recorded;   // attempts this step added to the store
};
using WatchStepObserver = std::function<void(const WatchStep&)>;

class RedisWatch {
 public:
  RedisWatch(RedisQueue& queue, data::TraceStore& store, std::int64_t run_id, std::ostream& log);

  // One look at the queue at wall-clock time `now`. Returns true when the run is over (above).
  bool step(data::Micros now);
  // Steps every options.poll until the run is over, then marks the run ended.
  void run(const WatchOptions& options);

  std::size_t recorded() const { return recorded_; }
  std::size_t requeued() const { return requeued_; }
  // Hears of every step, after its records are in the store.
  void set_step_observer(WatchStepObserver observer) { observer_ = std::move(observer); }

 private:
  int next_number(const std::string& item);
  // Notes who heartbeats and who holds what, and re-queues the ranges of workers that stopped
  // (their failed attempts recorded and added to `recorded`).
  void follow_holders(const QueueSnapshot& s, data::Micros now, std::vector<data::Attempt>& recorded);
  // The attempt a metrics line records, or nullopt while the lists do not say how it ended.
  std::optional<data::Attempt> listed_attempt(const QueueSnapshot& s, const std::string& item, const std::string& worker,
                                              data::Micros duration, data::Micros now);
  // Records what `succeeded` and `failed` say of ranges no metrics line explains.
  void record_unexplained(const QueueSnapshot& s, data::Micros now, std::vector<data::Attempt>& recorded);
  // Reports planned ranges without success that are in no list, when they change.
  void report_vanished(const QueueSnapshot& s);

  RedisQueue& queue_;
  data::TraceStore& store_;
  std::int64_t run_id_;
  std::ostream& log_;
  std::set<std::string> planned_;
  std::vector<std::string> plan_order_;              // the planned items in plan order
  std::multiset<std::string> seen_;                  // "END/COUNT|worker|duration_us" of recorded lines
  std::map<std::string, int> attempts_;              // item -> attempts recorded
  std::map<std::string, int> succeeded_;             // item -> succeeded attempts recorded
  std::map<std::string, int> listed_failed_;         // item -> failed attempts recorded from `failed`
  std::map<std::string, RangeHold> last_held_;       // range -> who held it last, since when
  std::vector<std::string> vanished_;                // last reported as in no list, in plan order
  std::string run_name_;
  std::set<std::string> malformed_;                  // metrics lines reported once and skipped
  WatchState state_;                                 // heartbeats and holds, saved every step
  std::size_t recorded_ = 0;
  std::size_t requeued_ = 0;
  WatchStepObserver observer_;
};

// Wall-clock now, microseconds since the Unix epoch.
data::Micros wall_clock_now();

}  // namespace millrace::cluster_adapter
