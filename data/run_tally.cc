#include "data/run_tally.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace millrace::data {

namespace {

// Out of line: the tally of every attempt stays small.
[[noreturn, gnu::cold, gnu::noinline]] void throw_start_unreported(const AttemptSpan& a) {
  throw std::logic_error("run tally: an attempt of item " + std::to_string(a.item) + " lasted from " +
                         std::to_string(a.start) + " to " + std::to_string(a.end) +
                         " us but its start was never reported");
}

}  // namespace

RunTally::RunTally(std::size_t items, std::size_t longest, Sweep sweep, std::size_t forget_every)
    : items_(items), longest_count_(longest), sweep_(sweep), first_starts_(items, kNotStarted), succeeded_(items, 0),
      forget_every_(std::max<std::size_t>(1, forget_every)) {}

void RunTally::started(Micros at, bool on_worker) {
  if (sweep_ == Sweep::kNone) return;
  if (!any_reported_) first_reported_ = at;
  any_reported_ = true;
  if (on_worker) workers_sweep_.start(at);
  if (sweep_ == Sweep::kWorkersAndPods) pods_sweep_.start(at);
}

void RunTally::ended(const AttemptSpan& a, bool start_reported) {
  const std::size_t position = attempts_++;
  first_start_ = position == 0 ? a.start : std::min(first_start_, a.start);
  last_end_ = position == 0 ? a.end : std::max(last_end_, a.end);
  total_work_ += a.end - a.start;
  if (a.outcome == Outcome::kFailed || a.outcome == Outcome::kCancelled) ++failed_attempts_;
  if (a.item < items_) {
    if (a.outcome == Outcome::kSucceeded && !succeeded_[a.item]) {
      succeeded_[a.item] = 1;
      ++succeeded_items_;
    }
    Micros& first = first_starts_[a.item];
    if (first == kNotStarted || a.start < first) first = a.start;
  }
  const bool on_worker = a.worker != AttemptSpan::kNoWorker;
  if (on_worker) {
    if (a.worker >= workers_.size()) workers_.resize(a.worker + 1);
    WorkerTally& worker = workers_[a.worker];
    worker.busy += a.end - a.start;
    ++worker.attempts;
  }

  if (longest_count_ > 0) {
    const AttemptSpan* last = longest_.size() < longest_count_ ? nullptr : &longest_.back().first;
    // Most attempts are shorter than the last one kept: `keep_if_longest` tells the rest.
    if (last == nullptr || a.end - a.start >= last->end - last->start) keep_if_longest(a, position);
  }

  if (sweep_ == Sweep::kNone) return;
  const bool pods = sweep_ == Sweep::kWorkersAndPods;
  if (a.end > a.start) {
    if (!start_reported) [[unlikely]] throw_start_unreported(a);
    if (on_worker) workers_sweep_.end(a.end);
    if (pods) {
      pods_first_start_ = any_lasted_ ? std::min(pods_first_start_, a.start) : a.start;
      pods_last_end_ = any_lasted_ ? std::max(pods_last_end_, a.end) : a.end;
      pods_sweep_.end(a.end);
    }
    any_lasted_ = true;
  } else if (start_reported) {
    if (on_worker) workers_sweep_.take_back_start(a.start);
    if (pods) pods_sweep_.take_back_start(a.start);
  }
  if (++since_forget_ >= forget_every_) forget_early();
}

// Longest first; ties by start, item, worker, position, so the order the attempts come in does
// not matter.
void RunTally::keep_if_longest(const AttemptSpan& a, std::size_t position) {
  auto longer = [](const std::pair<AttemptSpan, std::size_t>& p, const std::pair<AttemptSpan, std::size_t>& q) {
    const AttemptSpan& x = p.first;
    const AttemptSpan& y = q.first;
    return std::make_tuple(y.end - y.start, x.start, x.item, x.worker, p.second) <
           std::make_tuple(x.end - x.start, y.start, y.item, y.worker, q.second);
  };
  const std::pair<AttemptSpan, std::size_t> entry{a, position};
  if (longest_.size() == longest_count_) {
    if (!longer(entry, longest_.back())) return;
    longest_.pop_back();
  }
  longest_.insert(std::upper_bound(longest_.begin(), longest_.end(), entry, longer), entry);
}

// Every start of an attempt still running is at or after the first reported start, and every
// attempt not started yet ends (and starts, if never reported) after now: so the earliest start
// so far bounds the run's start from below, the latest end its end, and `from` cannot be earlier
// than the bound worked out from them.
void RunTally::forget_early() {
  since_forget_ = 0;
  if (!any_reported_) return;
  workers_sweep_.forget_before(BusySweep::last_tenth_from(std::min(first_start_, first_reported_), last_end_));
  if (sweep_ == Sweep::kWorkersAndPods && any_lasted_) {
    pods_sweep_.forget_before(BusySweep::last_tenth_from(first_reported_, pods_last_end_));
  }
}

RunSummary RunTally::summary(const BusySweep& workers_profile) const {
  RunSummary s;
  s.items = items_;
  s.attempts = attempts_;
  if (attempts_ == 0) {
    s.items_without_success = items_;
    return s;
  }
  s.failed_attempts = failed_attempts_;
  s.total_work = total_work_;
  s.first_start = first_start_;
  s.makespan = last_end_ - first_start_;
  s.items_without_success = items_ - succeeded_items_;
  std::vector<Micros> busy_times;
  for (const WorkerTally& worker : workers_) {
    if (worker.attempts > 0) busy_times.push_back(worker.busy);
  }
  s.workers = busy_times.size();
  if (s.workers == 0) return s;
  std::sort(busy_times.begin(), busy_times.end());
  s.busy_min = busy_times.front();
  s.busy_median = nearest_rank(busy_times, 0.5);
  s.busy_max = busy_times.back();
  s.tail = workers_profile.tail(first_start_, last_end_, s.workers);
  return s;
}

StragglerTail RunTally::pods_tail() const {
  if (!any_lasted_) return {};
  return pods_sweep_.tail(pods_first_start_, pods_last_end_, static_cast<std::size_t>(pods_sweep_.peak()));
}

}  // namespace millrace::data
