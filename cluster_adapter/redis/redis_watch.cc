#include "cluster_adapter/redis/redis_watch.h"

#include <algorithm>

#include "data/error.h"
#include "data/importers/stellar_trace.h"

namespace millrace::cluster_adapter {

namespace {

std::string attempt_key(const std::string& item, const std::string& worker, data::Micros duration) {
  return item + "|" + worker + "|" + std::to_string(duration);
}

}  // namespace

data::Micros wall_clock_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

RedisWatch::RedisWatch(RedisQueue& queue, data::TraceStore& store, std::int64_t run_id, std::ostream& log)
    : queue_(queue), store_(store), run_id_(run_id), log_(log), state_(load_watch_state(store, run_id)) {
  for (const data::WorkItem& item : store_.items(run_id_)) planned_.insert(item.id);
  for (const data::Attempt& a : store_.attempts(run_id_)) {
    ++attempts_[a.item_id];
    if (a.outcome == data::Outcome::kSucceeded) ++succeeded_[a.item_id];
    if (a.failure_reason != kHeartbeatLost) seen_.insert(attempt_key(a.item_id, a.worker, a.duration()));
  }
}

int RedisWatch::next_number(const std::string& item) { return ++attempts_[item]; }

void RedisWatch::follow_holders(const QueueSnapshot& s, data::Micros now, std::vector<data::Attempt>& recorded) {
  for (const std::string& worker : s.heartbeating) state_.last_heartbeat[worker] = now;
  std::map<std::string, RangeHold> holds;
  for (const std::string& range : s.in_progress) {
    const auto owner = s.owners.find(range);
    RangeHold hold{owner == s.owners.end() ? "" : owner->second, now};
    const auto known = state_.holds.find(range);
    if (known != state_.holds.end() && known->second.worker == hold.worker) hold.since = known->second.since;
    holds.emplace(range, hold);
  }
  state_.holds = std::move(holds);
  for (auto it = state_.holds.begin(); it != state_.holds.end();) {
    const auto& [range, hold] = *it;
    const auto beat = state_.last_heartbeat.find(hold.worker);
    if (beat == state_.last_heartbeat.end() || s.heartbeating.count(hold.worker) || !queue_.requeue(range)) {
      ++it;
      continue;
    }
    ++requeued_;
    log_ << "millrace: watch: " << hold.worker << " stopped heartbeating (last seen "
         << (now - beat->second) / data::kMicrosPerSecond << " s ago); re-queued " << range << "\n";
    if (planned_.count(range)) {
      data::Attempt a;
      a.item_id = range;
      a.number = next_number(range);
      a.worker = hold.worker;
      a.start = hold.since;
      a.end = now;
      a.outcome = data::Outcome::kFailed;
      a.exit_code = -1;
      a.failure_reason = kHeartbeatLost;
      store_.add_attempts(run_id_, {a});
      ++recorded_;
      recorded.push_back(a);
    }
    it = state_.holds.erase(it);
  }
}

bool RedisWatch::step(data::Micros now) {
  const QueueSnapshot s = queue_.snapshot();
  std::vector<data::Attempt> found;
  std::multiset<std::string> unmatched = seen_;
  for (const std::string& line : s.metrics) {
    data::importers::StellarEntry e;
    try {
      e = data::importers::parse_stellar_entry(line, queue_.names().metrics, data::importers::Suffixes::kOptional);
    } catch (const data::Error& error) {
      if (malformed_.insert(line).second) log_ << "millrace: watch: skipped " << error.what() << "\n";
      continue;
    }
    const std::string item = e.range.end_count();
    const std::string key = attempt_key(item, e.worker, e.total);
    if (auto it = unmatched.find(key); it != unmatched.end()) {
      unmatched.erase(it);
      continue;
    }
    if (!planned_.count(item)) {
      log_ << "millrace: watch: " << queue_.names().metrics << " holds '" << line << "', not a range of this run\n";
      seen_.insert(key);
      continue;
    }
    const auto listed = static_cast<int>(std::count(s.succeeded.begin(), s.succeeded.end(), item));
    const bool ok = listed > succeeded_[item];
    if (ok) ++succeeded_[item];
    data::Attempt& a = found.emplace_back();
    a.item_id = item;
    a.number = next_number(item);
    a.worker = e.worker;
    a.start = now - e.total;
    a.end = now;
    a.outcome = ok ? data::Outcome::kSucceeded : data::Outcome::kFailed;
    a.exit_code = ok ? 0 : 1;
    if (!ok) a.failure_reason = "listed in " + queue_.names().failed;
    a.work_time = e.tx_apply;
    seen_.insert(key);
  }
  if (!found.empty()) store_.add_attempts(run_id_, found);  // before any further Redis call can fail
  recorded_ += found.size();
  follow_holders(s, now, found);
  save_watch_state(store_, run_id_, state_);
  if (observer_) observer_(WatchStep{now, s, state_, found});
  if (!s.ranges.empty() || !s.in_progress.empty()) return false;
  std::set<std::string> failed_ranges;
  for (const std::string& f : s.failed) failed_ranges.insert(f.substr(0, f.find('|')));
  return std::all_of(planned_.begin(), planned_.end(),
                     [&](const std::string& item) { return succeeded_[item] > 0 || failed_ranges.count(item); });
}

void RedisWatch::run(const WatchOptions& options) {
  while (!retry_while_redis_down(queue_, log_, options.backoff, [&] { return step(wall_clock_now()); })) {
    std::this_thread::sleep_for(std::chrono::microseconds(options.poll));
  }
  store_.set_run_ended(run_id_, wall_clock_now());
}

}  // namespace millrace::cluster_adapter
