// The simulator's pending-event set: a radix heap on event time. Simulated time never goes
// back (no event is scheduled before the last one taken out), which lets a radix heap replace a
// comparison heap: pushing appends to one of 65 buckets chosen by the highest bit in which the
// time differs from the last time taken out, and taking out redistributes one bucket at a time.
// Buckets are FIFO and events of equal time always share a bucket, so ties come out in
// insertion order and runs are reproducible. A bucket's entry is 16 bytes (time, slot,
// generation): the event itself (Event should be a small trivially copyable struct) stays in its
// slot from push to pop, so the redistribution moves each entry without it. Cancellation bumps a
// per-slot generation so a cancelled entry is dropped when reached. After warm-up, push, pop and
// cancel allocate nothing.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "data/time.h"

namespace millrace::sim {

using EventId = std::uint64_t;  // generation << 32 | slot

template <typename Event>
class EventQueue {
 public:
  void reserve(std::size_t n) {
    slots_.reserve(n);
    free_.reserve(n);
  }

  // Live (scheduled, not cancelled, not taken out) events.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  // Schedules `event` at `at`; a time before the last one taken out is raised to it.
  EventId push(data::Micros at, const Event& event) {
    std::uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back(Slot{event, 0});
    } else {
      slot = free_.back();
      free_.pop_back();
      slots_[slot].event = event;
    }
    std::uint32_t gen = slots_[slot].generation;
    std::uint64_t key = at < 0 ? 0 : static_cast<std::uint64_t>(at);
    if (key < last_) rebase(key);
    insert(Entry{key, slot, gen});
    ++live_;
    return static_cast<EventId>(gen) << 32 | slot;
  }

  // Returns false when the event already ran, was cancelled, or never existed.
  bool cancel(EventId id) {
    auto slot = static_cast<std::uint32_t>(id);
    auto gen = static_cast<std::uint32_t>(id >> 32);
    if (slot >= slots_.size() || slots_[slot].generation != gen) return false;
    release(slot);
    ++stale_;
    return true;
  }

  // False only when no entry (live or cancelled) is at `at`: it can tell for the time last taken
  // out, whose entries are all in bucket 0, and answers true for any other time.
  bool maybe_at(data::Micros at) const {
    return at < 0 || static_cast<std::uint64_t>(at) != last_ || head_ < buckets_[0].size();
  }

  // Time of the earliest live event. Precondition: !empty().
  data::Micros next_time() {
    refill();
    return static_cast<data::Micros>(last_);
  }

  // Takes out the earliest live event (the first scheduled among equal times) into `event` and
  // returns its time. Precondition: !empty().
  data::Micros pop(Event& event) {
    refill();
    const Entry& e = buckets_[0][head_++];
    event = slots_[e.slot].event;
    release(e.slot);
    return static_cast<data::Micros>(last_);
  }

 private:
  struct Entry {
    std::uint64_t at;
    std::uint32_t slot;
    std::uint32_t generation;
  };

  // An event's place from push to pop, reused after: its event and the generation of its
  // current (or next) event, side by side.
  struct Slot {
    Event event;
    std::uint32_t generation;
  };

  bool stale(const Entry& e) const { return stale_ > 0 && slots_[e.slot].generation != e.generation; }

  void release(std::uint32_t slot) {
    ++slots_[slot].generation;
    free_.push_back(slot);
    --live_;
  }

  std::size_t bucket_of(std::uint64_t at) const {
    return at == last_ ? 0 : 64 - static_cast<std::size_t>(std::countl_zero(at ^ last_));
  }

  void insert(const Entry& e) {
    std::size_t b = bucket_of(e.at);
    buckets_[b].push_back(e);
    if (b == 0) return;
    std::uint64_t bit = std::uint64_t{1} << (b - 1);
    if (!(occupied_ & bit) || e.at < least_[b]) least_[b] = e.at;
    occupied_ |= bit;
  }

  // Makes buckets_[0][head_] the earliest live entry.
  void refill() {
    auto& front = buckets_[0];
    for (;;) {
      while (head_ < front.size() && stale(front[head_])) {
        ++head_;
        --stale_;
      }
      if (head_ < front.size()) return;
      front.clear();
      head_ = 0;
      // The lowest non-empty bucket holds the smallest times: its minimum becomes last_ and
      // its entries spread over lower buckets (keeping their order).
      std::size_t b = static_cast<std::size_t>(std::countr_zero(occupied_)) + 1;
      auto& bucket = buckets_[b];
      occupied_ &= ~(std::uint64_t{1} << (b - 1));
      // The least time may be a cancelled entry's: still a valid base, as no time is below it.
      last_ = least_[b];
      for (const Entry& e : bucket) {
        if (stale(e)) {
          --stale_;
        } else {
          insert(e);
        }
      }
      bucket.clear();
    }
  }

  // An event is scheduled before the earliest one (possible only after next_time() looked
  // ahead without taking it out): every entry is spread again around the new, lower last_.
  // Entries are re-inserted bucket by bucket in order, so equal times keep their order.
  void rebase(std::uint64_t key) {
    std::vector<Entry> all;
    for (std::size_t i = head_; i < buckets_[0].size(); ++i) all.push_back(buckets_[0][i]);
    for (std::size_t b = 1; b < 65; ++b) all.insert(all.end(), buckets_[b].begin(), buckets_[b].end());
    for (auto& bucket : buckets_) bucket.clear();
    head_ = 0;
    occupied_ = 0;
    last_ = key;
    for (const Entry& e : all) insert(e);
  }

  std::vector<Entry> buckets_[65];
  std::uint64_t occupied_ = 0;             // bit b-1 set when bucket b (b >= 1) holds entries
  std::uint64_t least_[65] = {};           // least time in bucket b, when occupied
  std::size_t head_ = 0;                   // next entry of bucket 0
  std::uint64_t last_ = 0;                 // time of the last entry taken out (all times >= it)
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
  std::size_t stale_ = 0;                  // cancelled entries still in buckets
};

}  // namespace millrace::sim
