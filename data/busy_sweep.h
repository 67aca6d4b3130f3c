// How many attempts run at each moment of a run, swept once in time order: the most at once
// and the straggler tail (data/run_summary.h). A simulation feeds it as its attempts start and
// end, so it holds no attempt; a recording's attempts, in any order, are sorted and fed the same
// way (BusySweep::of). At equal times ends come before starts: an attempt starting when another
// ends does not overlap it.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "data/time.h"

namespace millrace::data {

// The straggler tail, over the busy profile of a run: at each moment, how many attempts run on
// a worker (attempts with a worker and a positive duration). The run spans from its first
// attempt's start to its last end.
struct StragglerTail {
  Micros below_tenth = 0;              // final stretch with fewer than 10% of the peak busy workers
  Micros last_alone = 0;               // how long the last attempt ran with nothing else running
  double utilisation_last_tenth = 0;   // busy share of the workers in the last 10% of the span
  friend bool operator==(const StragglerTail&, const StragglerTail&) = default;
};

class BusySweep {
 public:
  // The profile of attempts [starts[i], ends[i]), given in any order. An instant attempt (end =
  // start) overlaps nothing: it leaves the peak as it is.
  static BusySweep of(std::vector<Micros> starts, std::vector<Micros> ends);

  // Calls in time order (a time never before the last one given). An attempt starts at `at`.
  void start(Micros at) {
    count_start(at);
    late_starts_.push_back(at);
  }
  // An attempt started at `at`, the last time given, ends there too: it is not part of the
  // profile, and its start is taken back.
  void take_back_start(Micros at) {
    if (pending_ == 0 || pending_at_ != at) return;  // not the latest start: nothing to take back
    --pending_;
    late_starts_.pop_back();
  }
  // An attempt ends at `at`.
  void end(Micros at) {
    count_end(at);
    late_ends_.push_back(at);
  }
  // The last tenth of the run will begin after `at`: what it needs from before is dropped (the
  // caller works out the bound from the run's start and the latest end so far). Keeps memory to
  // the attempts of about the last tenth of the run so far.
  void forget_before(Micros at);

  // The most attempts running at once.
  int peak() const;
  // The straggler tail of a run over [run_start, run_end] with `workers` workers, once every
  // attempt started has ended.
  StragglerTail tail(Micros run_start, Micros run_end, std::size_t workers) const;
  // Where the last tenth of a run over [run_start, run_end] begins (the tail's utilisation is of
  // what runs after it): it only grows with run_end and with run_start.
  static Micros last_tenth_from(Micros run_start, Micros run_end) { return run_end - (run_end - run_start) / 10; }

 private:
  // The sweep itself: a start waits until a later time comes (ends at its time come first).
  void count_start(Micros at) {
    if (pending_ > 0 && at > pending_at_) settle();
    pending_at_ = at;
    ++pending_;
    any_ = true;
  }
  void count_end(Micros at) {
    if (pending_ > 0 && at > pending_at_) settle();
    const int before = busy_--;
    if (before >= 1) {  // an instant attempt's end comes before its start in `of`: the count may dip below 0
      const auto level = static_cast<std::size_t>(before);
      if (level >= last_drop_.size()) last_drop_.resize(level + 1, 0);
      last_drop_[level] = at;
    }
    if (busy_ >= 2) {
      alone_ = false;
    } else if (busy_ == 1 && before != 1) {
      alone_ = true;
      alone_since_ = at;
    }
  }
  void settle();  // counts the starts at the latest time, once a later time comes

  Micros pending_at_ = 0;
  int pending_ = 0;                    // starts at pending_at_ not counted yet (ends there come first)
  int busy_ = 0;
  int peak_ = 0;
  std::vector<Micros> last_drop_;      // by level n >= 1: the last end at which n running became n - 1
  bool alone_ = false;                 // one attempt runs alone since alone_since_ (or ran, last)
  Micros alone_since_ = 0;
  // Starts and ends kept for the last tenth's utilisation, in time order. Deques: they grow and
  // shrink at their ends a block at a time, never moving what they hold.
  std::deque<Micros> late_starts_;
  std::deque<Micros> late_ends_;
  bool any_ = false;                   // some attempt started
};

}  // namespace millrace::data
