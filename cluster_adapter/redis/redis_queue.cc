#include "cluster_adapter/redis/redis_queue.h"

#include <algorithm>

#include "data/error.h"
#include "data/text_excerpt.h"

namespace millrace::cluster_adapter {

namespace {

constexpr std::size_t kPushBatch = 1000;

void make_valid(std::vector<std::string>& texts) {
  for (std::string& text : texts) text = data::valid_utf8(text);
}

}  // namespace

std::set<std::string> listed_ranges(const QueueSnapshot& s) {
  std::set<std::string> listed;
  for (const auto* list : {&s.ranges, &s.in_progress, &s.succeeded}) listed.insert(list->begin(), list->end());
  for (const std::string& f : s.failed) listed.insert(f.substr(0, f.find('|')));
  return listed;
}

void RedisQueue::check_key_type(const RedisReply& reply, const std::string& key, const char* wanted) {
  if (reply.type != RedisReply::Type::kError || reply.text.rfind("WRONGTYPE", 0) != 0) return;
  const RedisReply type = redis_.command({"TYPE", key});
  throw data::Error(redis_.name(), "key '" + data::valid_utf8(key) + "' holds a " + data::valid_utf8(type.text) +
                                       ", not a " + wanted + " (WRONGTYPE): delete it or name the queue's " +
                                       wanted + " otherwise");
}

void RedisQueue::push(const std::vector<std::string>& end_counts, bool append) {
  if (!append) {
    const auto held = redis_.transaction({{"LLEN", names_.ranges}, {"LLEN", names_.in_progress}});
    check_key_type(held[0], names_.ranges, "list");
    check_key_type(held[1], names_.in_progress, "list");
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
  check_key_type(r[0], names_.ranges, "list");
  check_key_type(r[1], names_.in_progress, "list");
  check_key_type(r[2], names_.succeeded, "list");
  check_key_type(r[3], names_.failed, "list");
  check_key_type(r[4], names_.metrics, "set");
  check_key_type(r[5], names_.owners, "hash");
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
  for (auto* list : {&s.ranges, &s.in_progress, &s.succeeded, &s.failed, &s.metrics}) make_valid(*list);
  std::map<std::string, std::string> owners_valid;
  for (const auto& [range, worker] : s.owners) owners_valid[data::valid_utf8(range)] = data::valid_utf8(worker);
  s.owners = std::move(owners_valid);
  std::set<std::string> heartbeating_valid;
  for (const std::string& worker : s.heartbeating) heartbeating_valid.insert(data::valid_utf8(worker));
  s.heartbeating = std::move(heartbeating_valid);
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
