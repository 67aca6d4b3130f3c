// The attempts a cluster holds, found by their handle. Handles are handed out in sequence, so a
// vector indexed by handle gives each its place in a pool of records reused as attempts finish:
// no hashing and no allocation per attempt once the pool has grown to the peak in flight.
#pragma once

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

  // Adds the record of `handle` (not in the table) and returns it.
  Record& insert(AttemptHandle handle, Record record) {
    if (handle >= place_of_.size()) place_of_.resize(handle + 1 + place_of_.size() / 2, kAbsent);
    std::uint32_t place;
    if (free_.empty()) {
      place = static_cast<std::uint32_t>(pool_.size());
      pool_.push_back(Entry{handle, std::move(record)});
    } else {
      place = free_.back();
      free_.pop_back();
      pool_[place] = Entry{handle, std::move(record)};
    }
    place_of_[handle] = place;
    ++size_;
    return pool_[place].record;
  }

  // The record of `handle`, or nullptr when it is not in flight.
  Record* find(AttemptHandle handle) {
    if (handle >= place_of_.size() || place_of_[handle] == kAbsent) return nullptr;
    return &pool_[place_of_[handle]].record;
  }
  const Record* find(AttemptHandle handle) const { return const_cast<FlightTable*>(this)->find(handle); }

  void erase(AttemptHandle handle) {
    std::uint32_t place = place_of_[handle];
    place_of_[handle] = kAbsent;
    free_.push_back(place);
    --size_;
  }

  // Calls `visit(handle, record)` for every attempt in flight, in no particular order.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (std::uint32_t place = 0; place < pool_.size(); ++place) {
      AttemptHandle handle = pool_[place].handle;
      if (place_of_[handle] == place) visit(handle, pool_[place].record);
    }
  }

 private:
  static constexpr std::uint32_t kAbsent = UINT32_MAX;
  struct Entry {
    AttemptHandle handle;
    Record record;
  };

  std::vector<std::uint32_t> place_of_;  // handle -> place in pool_, or kAbsent
  std::vector<Entry> pool_;
  std::vector<std::uint32_t> free_;      // places in pool_ not in use
  std::size_t size_ = 0;
};

}  // namespace millrace::scheduler
