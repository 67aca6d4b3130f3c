#include "cluster_adapter/redis/redis_watch.h"

#include <algorithm>

#include "data/checked_numbers.h"
#include "data/error.h"
#include "data/text_excerpt.h"
#include "data/importers/stellar_trace.h"

namespace millrace::cluster_adapter {

namespace {

std::string attempt_key(const std::string& item, const std::string& worker, data::Micros duration) {
  return item + "|" + worker + "|" + std::to_string(duration);
}

int count_of(const std::vector<std::string>& list, const std::string& item) {
  return static_cast<int>(std::count(list.begin(), list.end(), item));
}

// How many times `failed` lists `item` ("END/COUNT|worker" entries).
int failed_count(const QueueSnapshot& s, const std::string& item) {
  return static_cast<int>(std::count_if(s.failed.begin(), s.failed.end(), [&](const std::string& f) {
    return f.substr(0, f.find('|')) == item;
  }));
}

// The worker a `failed` entry names ("" when none).
std::string failed_worker(const QueueSnapshot& s, const std::string& item) {
  for (const std::string& f : s.failed) {
    const std::size_t bar = f.find('|');
    if (f.substr(0, bar) == item) return bar == std::string::npos ? "" : f.substr(bar + 1);
  }
  return "";
}

constexpr std::size_t kRangesNamed = 8;  // vanished ranges named in the report; the rest counted

}  // namespace

data::Micros wall_clock_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

RedisWatch::RedisWatch(RedisQueue& queue, data::TraceStore& store, std::int64_t run_id, std::ostream& log)
    : queue_(queue), store_(store), run_id_(run_id), log_(log), state_(load_watch_state(store, run_id)) {
  run_name_ = store_.run(run_id_).name;
  for (const data::WorkItem& item : store_.items(run_id_)) {
    planned_.insert(item.id);
    plan_order_.push_back(item.id);
  }
  for (const data::Attempt& a : store_.attempts(run_id_)) {
    ++attempts_[a.item_id];
    if (a.outcome == data::Outcome::kSucceeded) ++succeeded_[a.item_id];
    if (a.failure_reason == "listed in " + queue_.names().failed) ++listed_failed_[a.item_id];
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
  for (const auto& [range, hold] : state_.holds) last_held_[range] = hold;
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
    const std::optional<data::Micros> start = data::checked_sub(now, e.total);
    if (!start || *start < 0) {
      if (malformed_.insert(line).second) {
        log_ << "millrace: watch: skipped " << queue_.names().metrics << " line " << data::excerpt(line) << ": duration "
             << e.total / data::kMicrosPerSecond << " s would start it before 1970\n";
      }
      continue;
    }
    std::optional<data::Attempt> a = listed_attempt(s, item, e.worker, e.total, now);
    if (!a) continue;  // not yet marked succeeded or failed: looked at again next step
    a->work_time = e.tx_apply;
    found.push_back(*a);
    seen_.insert(key);
  }
  if (!found.empty()) store_.add_attempts(run_id_, found);  // before any further Redis call can fail
  recorded_ += found.size();
  follow_holders(s, now, found);
  report_vanished(s);
  const std::set<std::string> listed = listed_ranges(s);
  const bool over = s.ranges.empty() && s.in_progress.empty() &&
                    std::all_of(planned_.begin(), planned_.end(), [&](const std::string& item) {
                      return succeeded_[item] > 0 || listed.count(item);
                    });
  if (over) record_unexplained(s, now, found);
  save_watch_state(store_, run_id_, state_);
  if (observer_) observer_(WatchStep{now, s, state_, found});
  return over;
}

std::optional<data::Attempt> RedisWatch::listed_attempt(const QueueSnapshot& s, const std::string& item,
                                                        const std::string& worker, data::Micros duration,
                                                        data::Micros now) {
  const bool ok = count_of(s.succeeded, item) > succeeded_[item];
  if (!ok && failed_count(s, item) <= listed_failed_[item]) return std::nullopt;
  ++(ok ? succeeded_ : listed_failed_)[item];
  data::Attempt a;
  a.item_id = item;
  a.number = next_number(item);
  a.worker = worker;
  a.start = now - duration;
  a.end = now;
  a.outcome = ok ? data::Outcome::kSucceeded : data::Outcome::kFailed;
  a.exit_code = ok ? 0 : 1;
  if (!ok) a.failure_reason = "listed in " + queue_.names().failed;
  return a;
}

void RedisWatch::record_unexplained(const QueueSnapshot& s, data::Micros now, std::vector<data::Attempt>& recorded) {
  std::vector<data::Attempt> unexplained;
  for (const std::string& item : planned_) {
    while (std::optional<data::Attempt> a = listed_attempt(s, item, "", 0, now)) {
      const auto held = last_held_.find(item);
      a->worker = a->outcome == data::Outcome::kFailed ? failed_worker(s, item)
                  : held != last_held_.end()               ? held->second.worker
                                                           : "";
      if (held != last_held_.end()) a->start = held->second.since;
      log_ << "millrace: watch: " << item << " is listed in "
           << (a->outcome == data::Outcome::kSucceeded ? queue_.names().succeeded : queue_.names().failed)
           << " without a metrics line; recorded "
           << (held != last_held_.end() ? "from when it was seen held" : "with its duration unknown (0 s)") << "\n";
      unexplained.push_back(*a);
    }
  }
  if (unexplained.empty()) return;
  store_.add_attempts(run_id_, unexplained);
  recorded_ += unexplained.size();
  recorded.insert(recorded.end(), unexplained.begin(), unexplained.end());
}

void RedisWatch::report_vanished(const QueueSnapshot& s) {
  const std::set<std::string> listed = listed_ranges(s);
  std::vector<std::string> vanished;
  for (const std::string& item : plan_order_) {
    if (succeeded_[item] == 0 && !listed.count(item)) vanished.push_back(item);
  }
  if (vanished == vanished_) return;
  vanished_ = vanished;
  if (vanished.empty()) return;
  log_ << "millrace: watch: " << vanished.size() << " of the run's " << planned_.size()
       << " ranges are in no list of the queue and did not succeed (was Redis restarted without its data?):";
  std::size_t named = 0;
  for (const std::string& item : vanished) {
    if (named++ == kRangesNamed) {
      log_ << " and " << vanished.size() - kRangesNamed << " more";
      break;
    }
    log_ << " " << item;
  }
  const std::string& server = queue_.server();
  log_ << ". Put them back with: millrace push --redis " << server.substr(server.find(' ') + 1) << " --store "
       << store_.path() << " --resume '" << run_name_ << "' (waiting for them meanwhile)\n";
}

void RedisWatch::run(const WatchOptions& options) {
  while (!retry_while_redis_down(queue_, log_, options.backoff, [&] { return step(wall_clock_now()); })) {
    std::this_thread::sleep_for(std::chrono::microseconds(options.poll));
  }
  store_.set_run_ended(run_id_, wall_clock_now());
}

}  // namespace millrace::cluster_adapter
