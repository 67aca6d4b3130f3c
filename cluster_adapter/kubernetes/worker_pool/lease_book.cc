#include "cluster_adapter/kubernetes/worker_pool/lease_book.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace millrace::cluster_adapter {

LeaseBook::LeaseBook(const scheduler::Clock& clock, LeaseTerms terms, std::string session)
    : clock_(clock), terms_(terms), session_(std::move(session)) {}

// ---- the scheduler's side ---------------------------------------------------------------------

void LeaseBook::offer(const scheduler::Submission& submission) {
  {
    std::lock_guard lock(mutex_);
    if (!submission.worker.empty()) retired_.erase(std::string(submission.worker));
    offered_.push_back(submission);
  }
  changed_.notify_all();
}

void LeaseBook::withdraw(scheduler::AttemptHandle handle) {
  std::lock_guard lock(mutex_);
  data::Micros now = clock_.now();
  auto offered = std::find_if(offered_.begin(), offered_.end(), [&](const auto& s) { return s.handle == handle; });
  if (offered != offered_.end()) {
    offered_.erase(offered);
    events_.push_back({LeaseEvent::Kind::kFailed, {handle, now, "", 0, "cancelled", std::nullopt}});
    ++failures_unheard_;
    return;
  }
  auto held = std::find_if(leases_.begin(), leases_.end(),
                           [&](const auto& entry) { return entry.second.submission.handle == handle; });
  if (held == leases_.end()) return;
  ended_[held->first] = {LeaseReply::kCancelled, held->second.worker};
  end(held, LeaseEvent::Kind::kFailed, 0, "cancelled", std::nullopt, now);
}

void LeaseBook::retire(const std::string& lane) {
  {
    std::lock_guard lock(mutex_);
    retired_.insert(lane);
  }
  changed_.notify_all();
}

void LeaseBook::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

void LeaseBook::stop_waiting() {
  {
    std::lock_guard lock(mutex_);
    not_waiting_ = true;
  }
  changed_.notify_all();
}

std::vector<LeaseEvent> LeaseBook::wait_events(data::Micros max_wait) {
  std::unique_lock lock(mutex_);
  // The scheduler has acted on the last batch (retries offered): workers may go again.
  failures_unheard_ -= std::exchange(failures_delivered_, 0);
  if (failures_unheard_ == 0) changed_.notify_all();
  data::Micros wait = max_wait;
  data::Micros now = clock_.now();
  for (const auto& [id, lease] : leases_) wait = std::min(wait, lease.expires - now);
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(std::max<data::Micros>(wait, 0));
  changed_.wait_until(lock, until, [&] { return !events_.empty(); });
  sweep(clock_.now());
  std::vector<LeaseEvent> events;
  events.swap(events_);
  for (const LeaseEvent& e : events) failures_delivered_ += e.kind == LeaseEvent::Kind::kFailed;
  return events;
}

std::optional<data::Micros> LeaseBook::last_heard(const std::string& worker) const {
  std::lock_guard lock(mutex_);
  auto it = heard_.find(worker);
  if (it == heard_.end()) return std::nullopt;
  return it->second;
}

LeaseBookStatus LeaseBook::status() const {
  std::lock_guard lock(mutex_);
  LeaseBookStatus status;
  for (const auto& [id, lease] : leases_) status.leases.push_back(lease);
  status.offered = static_cast<int>(offered_.size());
  status.workers_waiting = static_cast<int>(waiters_.size());
  status.workers_released = released_;
  status.expired = expired_;
  status.closed = closed_;
  return status;
}

// ---- the workers' side -------------------------------------------------------------------------

LeaseOffer LeaseBook::lease(const std::string& worker) {
  std::unique_lock lock(mutex_);
  data::Micros now = clock_.now();
  heard_[worker] = now;
  sweep(now);
  for (auto it = leases_.begin(); it != leases_.end(); ++it) {
    if (it->second.worker == worker) {
      ended_[it->first] = {LeaseReply::kExpired, worker};
      end(it, LeaseEvent::Kind::kFailed, -1, kLeaseAbandoned, std::nullopt, now);
      break;
    }
  }
  const std::uint64_t waiter = next_waiter_++;
  waiters_.insert(waiter);
  if (static_cast<int>(retired_.size()) > released_) changed_.notify_all();  // an older waiter may go now
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(terms_.wait);
  changed_.wait_until(lock, until,
                      [&] { return closed_ || not_waiting_ || !offered_.empty() || may_release(waiter); });
  bool release = may_release(waiter);  // counting this worker among those waiting
  waiters_.erase(waiter);
  LeaseOffer offer;
  if (closed_) {
    offer.action = LeaseOffer::Action::kExit;
  } else if (!offered_.empty() && !not_waiting_) {
    now = clock_.now();
    offer.action = LeaseOffer::Action::kWork;
    offer.lease = Lease{session_ + "-" + std::to_string(next_id_++), worker, offered_.front(), now,
                        now + terms_.duration};
    offered_.pop_front();
    leases_[offer.lease.id] = offer.lease;
    events_.push_back({LeaseEvent::Kind::kStarted, {offer.lease.submission.handle, now, worker, 0, "", std::nullopt}});
    changed_.notify_all();
  } else if (release && !not_waiting_) {
    ++released_;
    offer.action = LeaseOffer::Action::kExit;
  }
  return offer;
}

std::optional<std::string> LeaseBook::item_of(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = leases_.find(id);
  if (it == leases_.end()) return std::nullopt;
  return it->second.submission.item().id;
}

LeaseReply LeaseBook::heartbeat(const std::string& id, data::Micros* expires) {
  std::lock_guard lock(mutex_);
  data::Micros now = clock_.now();
  sweep(now);
  auto it = leases_.find(id);
  if (it == leases_.end()) return gone(id);
  heard_[it->second.worker] = now;
  it->second.expires = now + terms_.duration;
  if (expires) *expires = it->second.expires;
  return LeaseReply::kOk;
}

LeaseReply LeaseBook::complete(const std::string& id, int exit_code, const std::string& reason,
                               std::optional<data::Micros> work_time,
                               const std::function<void(const std::string& item_id)>& on_success) {
  std::lock_guard lock(mutex_);
  data::Micros now = clock_.now();
  sweep(now);
  auto it = leases_.find(id);
  if (it == leases_.end()) return gone(id);  // a repeated completion: what the first recorded
  heard_[it->second.worker] = now;
  bool ok = exit_code == 0;
  const LeaseReply recorded = ok ? LeaseReply::kSucceeded : LeaseReply::kFailed;
  ended_[id] = {recorded, it->second.worker};
  if (ok && on_success) on_success(it->second.submission.item().id);
  end(it, ok ? LeaseEvent::Kind::kSucceeded : LeaseEvent::Kind::kFailed, exit_code,
      ok ? "" : (reason.empty() ? "exit" : reason), work_time, now);
  return recorded;
}

// ---- both (mutex held) ---------------------------------------------------------------------------

void LeaseBook::sweep(data::Micros now) {
  for (auto it = leases_.begin(); it != leases_.end();) {
    auto next = std::next(it);
    if (it->second.expires <= now) {
      ended_[it->first] = {LeaseReply::kExpired, it->second.worker};
      ++expired_;
      end(it, LeaseEvent::Kind::kFailed, -1, kLeaseExpired, std::nullopt, it->second.expires);
    }
    it = next;
  }
}

void LeaseBook::end(std::map<std::string, Lease>::iterator lease, LeaseEvent::Kind kind, int exit_code,
                    const std::string& reason, std::optional<data::Micros> work_time, data::Micros at) {
  events_.push_back({kind, {lease->second.submission.handle, at, lease->second.worker, exit_code, reason, work_time}});
  failures_unheard_ += kind == LeaseEvent::Kind::kFailed;
  leases_.erase(lease);
  changed_.notify_all();
}

LeaseReply LeaseBook::gone(const std::string& id) {
  auto it = ended_.find(id);
  if (it == ended_.end()) return LeaseReply::kUnknown;
  heard_[it->second.worker] = clock_.now();
  return it->second.reply;
}

// A worker may go when the scheduler retired more lanes than workers went, but never the idle
// one heard from last while leases are held or a failure is on its way to the scheduler (the
// retry of an expired lease would find no worker).
bool LeaseBook::may_release(std::uint64_t waiter) const {
  return static_cast<int>(retired_.size()) > released_ &&
         ((leases_.empty() && failures_unheard_ == 0) || waiter != *waiters_.rbegin());
}

}  // namespace millrace::cluster_adapter
