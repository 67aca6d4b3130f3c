#include "cluster_adapter/redis/redis_queue.h"

#include <algorithm>

#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

constexpr std::size_t kPushBatch = 1000;

}  // namespace

void RedisQueue::push(const std::vector<std::string>& end_counts, bool append) {
  if (!append) {
    const auto held = redis_.transaction({{"LLEN", names_.ranges}, {"LLEN", names_.in_progress}});
    const std::int64_t waiting = redis_.integer(held[0], "LLEN " + names_.ranges);
    const std::int64_t taken = redis_.integer(held[1], "LLEN " + names_.in_progress);
    if (waiting > 0 || taken > 0) {
      throw data::Error(redis_.name(), "the queue already holds " + std::to_string(waiting) + " ranges in " +
                                           names_.ranges + " and " + std::to_string(taken) + " in " +
                                           names_.in_progress + " (use --append to add to it)");
    }
  }
  std::vector<std::vector<std::string>> batches;
  for (std::size_t i = 0; i < end_counts.size(); i += kPushBatch) {
    std::vector<std::string> rpush{"RPUSH", names_.ranges};
    for (std::size_t j = i; j < std::min(end_counts.size(), i + kPushBatch); ++j) rpush.push_back(end_counts[j]);
    batches.push_back(std::move(rpush));
  }
  redis_.transaction(batches);
}

QueueSnapshot RedisQueue::snapshot() {
  const auto r = redis_.transaction({{"LRANGE", names_.ranges, "0", "-1"},
                                     {"LRANGE", names_.in_progress, "0", "-1"},
                                     {"LRANGE", names_.succeeded, "0", "-1"},
                                     {"LRANGE", names_.failed, "0", "-1"},
                                     {"SMEMBERS", names_.metrics},
                                     {"HGETALL", names_.owners}});
  QueueSnapshot s{redis_.string_array(r[0], "LRANGE " + names_.ranges),
                  redis_.string_array(r[1], "LRANGE " + names_.in_progress),
                  redis_.string_array(r[2], "LRANGE " + names_.succeeded),
                  redis_.string_array(r[3], "LRANGE " + names_.failed),
                  redis_.string_array(r[4], "SMEMBERS " + names_.metrics),
                  {},
                  {}};
  const std::vector<std::string> owners = redis_.string_array(r[5], "HGETALL " + names_.owners);
  if (owners.size() % 2 != 0) throw data::Error(redis_.name(), "HGETALL " + names_.owners + " answered an odd count");
  for (std::size_t i = 0; i + 1 < owners.size(); i += 2) s.owners[owners[i]] = owners[i + 1];
  std::vector<std::string> workers;
  for (const auto& [range, worker] : s.owners) workers.push_back(worker);
  if (!workers.empty()) {
    std::vector<std::string> mget{"MGET"};
    for (const std::string& w : workers) mget.push_back(names_.heartbeat_prefix + w);
    const RedisReply beats = redis_.command(mget);
    redis_.string_array(beats, "MGET", true);
    if (beats.elements.size() != workers.size()) {
      throw data::Error(redis_.name(), "MGET answered " + std::to_string(beats.elements.size()) + " values for " +
                                           std::to_string(workers.size()) + " keys");
    }
    for (std::size_t i = 0; i < beats.elements.size(); ++i) {
      if (beats.elements[i].type != RedisReply::Type::kNil) s.heartbeating.insert(workers[i]);
    }
  }
  return s;
}

bool RedisQueue::requeue(const std::string& range) {
  // One script, so a range is never both lost and never in two lists, whatever fails between.
  static const std::string script =
      "if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then return 0 end "
      "redis.call('LPUSH', KEYS[2], ARGV[1]) redis.call('HDEL', KEYS[3], ARGV[1]) return 1";
  return redis_.integer(redis_.command({"EVAL", script, "3", names_.in_progress, names_.ranges, names_.owners, range}),
                        "EVAL (requeue)") == 1;
}

}  // namespace millrace::cluster_adapter
