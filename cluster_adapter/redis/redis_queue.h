// The work queue of stellar-style parallel catch-ups, kept in Redis, as their workers use it:
//   ranges       list of "END/COUNT" still to run; workers take from the left
//                (LMOVE ranges in_progress LEFT LEFT), so the plan is pushed in run order
//   in_progress  list of ranges a worker holds
//   succeeded    list of "END/COUNT" done
//   failed       list of "END/COUNT|worker" that failed
//   metrics      set of "END/COUNT|worker|tx_apply_ms|duration_s" lines, one per finished try
//   job_owners   hash range -> worker holding it (HSET after the LMOVE, HDEL when done)
// and one convention millrace adds for the job monitor's retry:
//   heartbeat:<worker>  a key the worker refreshes while it holds a range
//                       (SET heartbeat:<worker> <unix seconds> EX <ttl>, every ttl/3 or so).
// A range in in_progress whose owner's heartbeat key was seen and has since expired belongs to
// a worker that stopped: it is moved back to the left of `ranges` (taken next) in one MULTI.
// Workers that never write a heartbeat are never re-queued.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cluster_adapter/redis/redis_connection.h"

namespace millrace::cluster_adapter {

struct RedisQueueNames {
  std::string ranges = "ranges";
  std::string in_progress = "in_progress";
  std::string succeeded = "succeeded";
  std::string failed = "failed";
  std::string metrics = "metrics";
  std::string owners = "job_owners";
  std::string heartbeat_prefix = "heartbeat:";
};

// Everything the queue holds at one moment (read in one MULTI, so it is consistent), its text
// made valid UTF-8 (data/text_excerpt.h: each byte that is not becomes U+FFFD), since it comes
// from workers millrace does not control and goes on into the trace store and JSON.
struct QueueSnapshot {
  std::vector<std::string> ranges;
  std::vector<std::string> in_progress;
  std::vector<std::string> succeeded;
  std::vector<std::string> failed;
  std::vector<std::string> metrics;
  std::map<std::string, std::string> owners;  // range -> worker
  std::set<std::string> heartbeating;         // workers whose heartbeat key exists
};

// The ranges in any list of `s`: ranges, in_progress, succeeded and failed (its END/COUNT part).
std::set<std::string> listed_ranges(const QueueSnapshot& s);

class RedisQueue {
 public:
  RedisQueue(RedisConnection& connection, RedisQueueNames names) : redis_(connection), names_(std::move(names)) {}

  // Appends `end_counts` to the ranges list in this order (the first is taken first). Throws
  // data::Error when the queue already holds ranges (in ranges or in_progress) unless `append`.
  void push(const std::vector<std::string>& end_counts, bool append);
  // Throws data::Error naming the server and the command for a reply of the wrong shape, and,
  // when a key holds another type than the queue uses (WRONGTYPE), the key and the type it holds.
  QueueSnapshot snapshot();
  // Moves `range` from in_progress back to the front of ranges and forgets its owner; false
  // when it was no longer in progress (its worker finished meanwhile).
  bool requeue(const std::string& range);

  const RedisQueueNames& names() const { return names_; }
  // The server's name, as connection errors name it ("redis HOST:PORT").
  const std::string& server() const { return redis_.name(); }

 private:
  // Throws, naming `key` and the type it holds, when `reply` is the WRONGTYPE error of a command on it.
  void check_key_type(const RedisReply& reply, const std::string& key, const char* wanted);

  RedisConnection& redis_;
  RedisQueueNames names_;
};

}  // namespace millrace::cluster_adapter
