#include "cluster_adapter/realtime/store_backlog.h"

#include <algorithm>
#include <ostream>
#include <thread>

#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kLongestBackoff{5000};

}  // namespace

StoreBacklog::StoreBacklog(data::TraceStore& store, std::ostream* notes) : store_(store), notes_(notes) {}

void StoreBacklog::add(Write write) {
  queue_.push_back(std::move(write));
  retry();
}

void StoreBacklog::retry() {
  if (!queue_.empty() && Clock::now() >= next_try_) flush();
}

void StoreBacklog::flush() {
  while (!queue_.empty()) {
    try {
      queue_.front()(store_);
    } catch (const data::StoreBusy& busy) {
      if (backoff_.count() == 0 && notes_ != nullptr) {
        *notes_ << "millrace: " << store_.path() << " is locked by another process (" << busy.problem()
                << "); keeping the run's records in memory until it is free\n";
      }
      backoff_ = std::clamp(backoff_ * 2, kFirstBackoff, kLongestBackoff);
      next_try_ = Clock::now() + backoff_;
      return;
    } catch (...) {
      queue_.pop_front();  // failed for good: the caller hears of it once
      throw;
    }
    queue_.pop_front();
  }
  if (backoff_.count() != 0 && notes_ != nullptr) *notes_ << "millrace: " << store_.path() << " is free again; records written\n";
  backoff_ = std::chrono::milliseconds{0};
}

void StoreBacklog::drain() {
  while (!queue_.empty()) {
    std::this_thread::sleep_until(next_try_);
    flush();
  }
}

}  // namespace millrace::cluster_adapter
