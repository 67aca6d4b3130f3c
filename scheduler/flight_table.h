// The attempts a cluster holds, found by their handle. Handles are handed out in sequence, so a
// vector indexed by handle gives each its place in a pool of records reused as attempts finish:
// no hashing and no allocation per attempt once the pool has grown to the peak in flight. The
// vector is a window over the handles from the oldest in flight on (the handles below it are
// dropped once they are half of it), so it grows with the handles in flight, not with every
// handle of the run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/cluster.h"

namespace millrace::scheduler {

template <typename Record>
class FlightTable {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // How many handles the window covers: fewer than twice those from the oldest in flight to the
  // newest added, none when nothing is in flight.
  std::size_t handles_covered() const { return place_of_.size(); }

  // Adds the record of `handle` (not in the table) and returns it.
  Record& insert(AttemptHandle handle, const Record& record) { return add(handle) = record; }
  // Adds `handle` (not in the table) and returns its place for the caller to fill in: it holds
  // what an earlier handle's record left there, or a default record. The usual case (the next
  // handle in sequence, a free place in the pool) is a few instructions inlined in the caller.
  Record& add(AttemptHandle handle) {
    if (size_ == 0 || handle < base_) [[unlikely]] restart_window(handle);
    const std::size_t at = handle - base_;
    while (at >= place_of_.size()) place_of_.push_back(kAbsent);  // mostly once: handles come in sequence
    first_ = std::min(first_, at);
    if (free_.empty()) [[unlikely]] grow_pool();
    const std::uint32_t place = free_.back();
    free_.pop_back();
    pool_[place].handle = handle;
    place_of_[at] = place;
    ++size_;
    return pool_[place].record;
  }

  // The record of `handle`, or nullptr when it is not in flight.
  Record* find(AttemptHandle handle) {
    const std::size_t at = handle - base_;  // wraps past the end for a handle below the window
    if (at >= place_of_.size() || place_of_[at] == kAbsent) return nullptr;
    return &pool_[place_of_[at]].record;
  }
  const Record* find(AttemptHandle handle) const { return const_cast<FlightTable*>(this)->find(handle); }

  // Removes `handle` (in the table).
  void erase(AttemptHandle handle) {
    std::uint32_t& place = place_of_[handle - base_];
    free_.push_back(place);
    place = kAbsent;
    --size_;
    while (first_ < place_of_.size() && place_of_[first_] == kAbsent) ++first_;
    if (first_ < place_of_.size() / 2) return;
    place_of_.erase(place_of_.begin(), place_of_.begin() + static_cast<std::ptrdiff_t>(first_));
    base_ += first_;
    first_ = 0;
  }

  // Calls `visit(handle, record)` for every attempt in flight, in no particular order.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (std::uint32_t place = 0; place < pool_.size(); ++place) {
      const AttemptHandle handle = pool_[place].handle;
      const std::size_t at = handle - base_;
      if (handle >= base_ && at < place_of_.size() && place_of_[at] == place) visit(handle, pool_[place].record);
    }
  }

 private:
  static constexpr std::uint32_t kAbsent = UINT32_MAX;

  // Nothing in flight: the window starts over at `handle`; or `handle` is older than the window
  // (a resumed run's attempt): the window reaches back to it.
  [[gnu::noinline]] void restart_window(AttemptHandle handle) {
    if (size_ == 0) {
      place_of_.clear();
    } else {
      place_of_.insert(place_of_.begin(), base_ - handle, kAbsent);
    }
    base_ = handle;
  }
  // A new place at the end of the pool, free.
  [[gnu::noinline]] void grow_pool() {
    free_.push_back(static_cast<std::uint32_t>(pool_.size()));
    pool_.emplace_back();
  }
  struct Entry {
    AttemptHandle handle;
    Record record;
  };

  std::vector<std::uint32_t> place_of_;  // handle - base_ -> place in pool_, or kAbsent
  AttemptHandle base_ = 0;               // the first handle the window covers
  std::size_t first_ = 0;                // place_of_ below it is all kAbsent
  std::vector<Entry> pool_;
  std::vector<std::uint32_t> free_;      // places in pool_ not in use
  std::size_t size_ = 0;
};

}  // namespace millrace::scheduler
