// The simulator's pending-event set: a 4-ary min-heap on (time, insertion sequence), so events
// at equal times come out in the order they were scheduled and every run is reproducible.
// Events are stored inline (Event should be a small trivially copyable struct); cancellation
// bumps a per-slot generation so a cancelled entry is skipped when it reaches the top. After
// warm-up, push, pop and cancel allocate nothing.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "data/time.h"

namespace millrace::sim {

using EventId = std::uint64_t;  // generation << 32 | slot

template <typename Event>
class EventQueue {
 public:
  void reserve(std::size_t n) {
    heap_.reserve(n);
    generation_.reserve(n);
    free_.reserve(n);
  }

  // Live (scheduled, not cancelled, not popped) events.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  EventId push(data::Micros at, const Event& event) {
    std::uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(generation_.size());
      generation_.push_back(0);
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    std::uint32_t gen = generation_[slot];
    heap_.push_back(Entry{at, sequence_++, slot, gen, event});
    sift_up(heap_.size() - 1);
    ++live_;
    return static_cast<EventId>(gen) << 32 | slot;
  }

  // Returns false when the event already ran, was cancelled, or never existed.
  bool cancel(EventId id) {
    auto slot = static_cast<std::uint32_t>(id);
    auto gen = static_cast<std::uint32_t>(id >> 32);
    if (slot >= generation_.size() || generation_[slot] != gen) return false;
    release(slot);
    return true;
  }

  // Time of the earliest live event. Precondition: !empty().
  data::Micros next_time() {
    drop_cancelled();
    return heap_.front().at;
  }

  // Removes the earliest live event into `event` and returns its time. Precondition: !empty().
  data::Micros pop(Event& event) {
    drop_cancelled();
    Entry& top = heap_.front();
    data::Micros at = top.at;
    event = top.event;
    release(top.slot);
    remove_top();
    return at;
  }

 private:
  struct Entry {
    data::Micros at;
    std::uint64_t sequence;
    std::uint32_t slot;
    std::uint32_t generation;
    Event event;
  };

  static bool before(const Entry& a, const Entry& b) {
    return a.at < b.at || (a.at == b.at && a.sequence < b.sequence);
  }

  void release(std::uint32_t slot) {
    ++generation_[slot];
    free_.push_back(slot);
    --live_;
  }

  void drop_cancelled() {
    while (stale(heap_.front())) remove_top();
  }

  // An entry is stale when its slot was released (cancelled) after it was pushed.
  bool stale(const Entry& e) const { return generation_[e.slot] != e.generation; }

  void remove_top() {
    Entry last = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, std::move(last));
  }

  void sift_up(std::size_t i) {
    Entry moving = std::move(heap_[i]);
    while (i > 0) {
      std::size_t parent = (i - 1) / 4;
      if (!before(moving, heap_[parent])) break;
      heap_[i] = std::move(heap_[parent]);
      i = parent;
    }
    heap_[i] = std::move(moving);
  }

  void sift_down(std::size_t i, Entry moving) {
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < end; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], moving)) break;
      heap_[i] = std::move(heap_[best]);
      i = best;
    }
    heap_[i] = std::move(moving);
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> generation_;  // per slot: generation of its current (or next) event
  std::vector<std::uint32_t> free_;
  std::uint64_t sequence_ = 0;
  std::size_t live_ = 0;
};

}  // namespace millrace::sim
