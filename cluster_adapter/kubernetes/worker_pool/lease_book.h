// The work a worker pool pulls, as leases: the scheduler's submissions wait here until a pool
// worker asks for work; the worker then holds the attempt under a lease that expires unless
// it heartbeats, and ends it by completing it with its exit code. An expired lease is final:
// its attempt is reported failed ("lease-expired") so the retry policy decides, and whatever
// the worker says about it later is refused. A worker asking for work while holding a lease
// has lost it (its process restarted): that attempt fails at once ("lease-abandoned").
//
// Workers are told to exit when the run is over (close()) or when the scheduler retires pool
// lanes, one idle worker per retired lane; while any lease is held or a failure is on its way to
// the scheduler, the idle worker heard from last is kept, so work coming back from an expired
// lease (a retry) still finds a worker. The last to ask, not any: a worker frozen (or gone) while
// its request waits never asks again, so its request only ages while a live one asks anew after
// every wait, and the worker kept is the one most surely alive. If that one is lost in turn
// holding the retry, the book has no worker left to offer it to: the pool replaces lost workers
// (worker_pool_cluster.h), so one asks again. Lease requests from
// the HTTP threads wait (long poll) until there is work, an exit, or the terms' wait passed.
// Everything the scheduler must hear is queued as events for the poll thread. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data/time.h"
#include "scheduler/clock.h"
#include "scheduler/cluster.h"

namespace millrace::cluster_adapter {

struct LeaseTerms {
  data::Micros duration = 60 * data::kMicrosPerSecond;   // from the grant or the last heartbeat
  data::Micros heartbeat = 20 * data::kMicrosPerSecond;  // how often workers are asked to heartbeat
  data::Micros wait = 20 * data::kMicrosPerSecond;       // longest a lease request waits for work
};

inline constexpr const char* kLeaseExpired = "lease-expired";
inline constexpr const char* kLeaseAbandoned = "lease-abandoned";

struct Lease {
  std::string id;
  std::string worker;
  scheduler::Submission submission;
  data::Micros granted = 0;
  data::Micros expires = 0;
};

struct LeaseOffer {
  enum class Action { kWork, kWait, kExit };
  Action action = Action::kWait;
  Lease lease;  // kWork only
};

// How a heartbeat or a completion was taken: kOk (a heartbeat extended the lease), kSucceeded /
// kFailed (the lease was completed, now or before, and this is what was recorded), or why no
// lease is held.
enum class LeaseReply { kOk, kSucceeded, kFailed, kExpired, kCancelled, kUnknown };

struct LeaseEvent {
  enum class Kind { kStarted, kSucceeded, kFailed };
  Kind kind = Kind::kStarted;
  scheduler::KeptAttemptEvent event;
};

struct LeaseBookStatus {
  std::vector<Lease> leases;        // held now, by id
  int offered = 0;                  // submissions waiting for a worker
  int workers_waiting = 0;          // lease requests waiting for work now
  int workers_released = 0;         // workers told to exit
  std::int64_t expired = 0;         // leases that expired
  bool closed = false;
};

class LeaseBook {
 public:
  // Lease ids are `session`-N, so a worker holding a lease of an earlier session of the run
  // (before a scheduler restart) is told it is unknown, never mistaken for a new one.
  LeaseBook(const scheduler::Clock& clock, LeaseTerms terms, std::string session);

  const LeaseTerms& terms() const { return terms_; }

  // ---- the scheduler's side (poll thread)
  void offer(const scheduler::Submission& submission);
  // Cancels an attempt: dropped if still offered, else its lease is revoked (the worker hears
  // it at its next heartbeat). Either way a failed event "cancelled" follows.
  void withdraw(scheduler::AttemptHandle handle);
  // One pool lane fewer is needed (until a submission names it again).
  void retire(const std::string& lane);
  // The run is over: every worker asking from now on is told to exit.
  void close();
  // This session ends but the run is not over (stopped, scheduler shutting down): waiting lease
  // requests answer "wait" at once, and so do new ones, so workers keep asking until a resumed
  // session serves them.
  void stop_waiting();
  // Waits up to `max_wait` (less if a lease expires sooner) for events, sweeps expired leases
  // and returns what happened since the last call.
  std::vector<LeaseEvent> wait_events(data::Micros max_wait);
  LeaseBookStatus status() const;

  // When `worker` was last heard from (a lease request, a heartbeat or completion of a lease it
  // held, even one that had expired); nothing if never.
  std::optional<data::Micros> last_heard(const std::string& worker) const;

  // ---- the workers' side (HTTP threads)
  LeaseOffer lease(const std::string& worker);
  // The item id of the lease `id` while it is held.
  std::optional<std::string> item_of(const std::string& id) const;
  // Extends the lease by terms().duration; `expires` gets the new expiry when kOk. A lease
  // already completed answers what was recorded (kSucceeded / kFailed) and is not extended.
  LeaseReply heartbeat(const std::string& id, data::Micros* expires);
  // Ends the lease: succeeded when `exit_code` is 0, else failed with `reason` ("exit" if empty);
  // returns what was recorded. A lease completed before is not changed: its first outcome is
  // returned, whatever this completion says. `on_success`, when this completion is the one
  // recorded as succeeded, is called with the lease's item id before the scheduler can hear of it.
  LeaseReply complete(const std::string& id, int exit_code, const std::string& reason,
                      std::optional<data::Micros> work_time,
                      const std::function<void(const std::string& item_id)>& on_success = {});

 private:
  void sweep(data::Micros now);
  void end(std::map<std::string, Lease>::iterator lease, LeaseEvent::Kind kind, int exit_code,
           const std::string& reason, std::optional<data::Micros> work_time, data::Micros at);
  struct EndedLease {
    LeaseReply reply;
    std::string worker;
  };
  LeaseReply gone(const std::string& id);  // notes its worker heard from
  // Whether the waiting request `waiter` may be told to exit.
  bool may_release(std::uint64_t waiter) const;

  const scheduler::Clock& clock_;
  LeaseTerms terms_;
  std::string session_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<scheduler::Submission> offered_;
  std::map<std::string, Lease> leases_;             // by id
  std::map<std::string, EndedLease> ended_;         // ids of leases no longer held: why, whose
  std::map<std::string, data::Micros> heard_;       // by worker: when last heard from
  std::set<std::string> retired_;                   // lanes
  std::vector<LeaseEvent> events_;
  std::uint64_t next_id_ = 1;
  std::set<std::uint64_t> waiters_;  // lease requests waiting for work, by arrival
  std::uint64_t next_waiter_ = 0;
  int released_ = 0;
  int failures_unheard_ = 0;    // failure events the scheduler may not have acted on yet
  int failures_delivered_ = 0;  // of which in the last batch wait_events() returned
  std::int64_t expired_ = 0;
  bool closed_ = false;
  bool not_waiting_ = false;
};

}  // namespace millrace::cluster_adapter
