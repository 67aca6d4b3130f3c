#include "cluster_adapter/realtime/store_backlog.h"

#include <algorithm>
#include <ostream>
#include <thread>

#include "data/error.h"
#include "data/redaction.h"

namespace millrace::cluster_adapter {

namespace {

constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kLongestBackoff{5000};

}  // namespace

StoreBacklog::StoreBacklog(data::TraceStore& store, std::ostream* notes) : store_(store), notes_(notes) {}

void StoreBacklog::add(Write write, int attempts) {
  queue_.push_back(Queued{std::move(write), attempts, Clock::now()});
  queued_attempts_ += attempts;
  retry();
}

void StoreBacklog::retry() {
  if (!queue_.empty() && Clock::now() >= next_try_) flush();
}

void StoreBacklog::flush() {
  while (!queue_.empty()) {
    try {
      queue_.front().write(store_);
    } catch (const data::StoreBusy& busy) {
      last_error_ = data::redact(busy.what());
      if (backoff_.count() == 0 && notes_ != nullptr) {
        *notes_ << "millrace: " << data::redact(store_.path()) << " is locked by another process ("
                << data::redact(busy.problem()) << "); keeping the run's records in memory until it is free\n";
      }
      backoff_ = std::clamp(backoff_ * 2, kFirstBackoff, kLongestBackoff);
      next_try_ = Clock::now() + backoff_;
      return;
    } catch (...) {
      queued_attempts_ -= queue_.front().attempts;
      queue_.pop_front();  // failed for good: the caller hears of it once
      throw;
    }
    queued_attempts_ -= queue_.front().attempts;
    queue_.pop_front();
  }
  if (backoff_.count() != 0 && notes_ != nullptr) {
    *notes_ << "millrace: " << data::redact(store_.path()) << " is free again; records written\n";
  }
  backoff_ = std::chrono::milliseconds{0};
}

void StoreBacklog::drain() {
  while (!queue_.empty()) {
    std::this_thread::sleep_until(next_try_);
    flush();
  }
}

BacklogState StoreBacklog::state() const {
  BacklogState state;
  state.writes = queue_.size();
  state.attempts = queued_attempts_;
  if (!queue_.empty()) {
    state.oldest_age =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - queue_.front().since).count();
  }
  state.last_error = last_error_;
  return state;
}

}  // namespace millrace::cluster_adapter
