#include "data/busy_sweep.h"

#include <algorithm>
#include <cstdint>

namespace millrace::data {

BusySweep BusySweep::of(std::vector<Micros> starts, std::vector<Micros> ends) {
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  BusySweep sweep;
  std::size_t next_start = 0;
  for (Micros end : ends) {
    while (next_start < starts.size() && starts[next_start] < end) sweep.count_start(starts[next_start++]);
    sweep.count_end(end);
  }
  while (next_start < starts.size()) sweep.count_start(starts[next_start++]);
  sweep.late_starts_.assign(starts.begin(), starts.end());
  sweep.late_ends_.assign(ends.begin(), ends.end());
  return sweep;
}

void BusySweep::settle() {
  const int before = busy_;
  busy_ += pending_;
  peak_ = std::max(peak_, busy_);
  if (busy_ >= 2) {
    alone_ = false;
  } else if (before == 0) {
    alone_ = true;
    alone_since_ = pending_at_;
  }
  pending_ = 0;
}

void BusySweep::forget_before(Micros at) {
  while (!late_starts_.empty() && late_starts_.front() < at) late_starts_.pop_front();
  while (!late_ends_.empty() && late_ends_.front() < at) late_ends_.pop_front();
}

int BusySweep::peak() const { return std::max(peak_, busy_ + pending_); }

StragglerTail BusySweep::tail(Micros run_start, Micros run_end, std::size_t workers) const {
  if (pending_ > 0) {
    BusySweep settled = *this;
    settled.settle();
    return settled.tail(run_start, run_end, workers);
  }
  StragglerTail tail;
  if (!any_ || run_end <= run_start) return tail;
  // The stretch below the threshold began at the last end that took the count below it (ends
  // take one at a time); the last attempt alone, where the count last became one.
  const auto threshold = static_cast<std::size_t>(std::max(1, (peak_ + 9) / 10));
  const Micros below_since = threshold < last_drop_.size() ? last_drop_[threshold] : run_end;
  tail.below_tenth = run_end - below_since;
  tail.last_alone = alone_ ? run_end - alone_since_ : 0;
  // Busy time after `from`: each attempt ending after it counts from max(start, from), and an
  // attempt starting after `from` also ends after it. Summed modulo 2^64, exact whenever the
  // busy time itself fits.
  const Micros from = last_tenth_from(run_start, run_end);
  const auto late_end = std::upper_bound(late_ends_.begin(), late_ends_.end(), from);
  const auto late_start = std::upper_bound(late_starts_.begin(), late_starts_.end(), from);
  std::uint64_t busy_late = 0;
  for (auto end = late_end; end != late_ends_.end(); ++end) busy_late += static_cast<std::uint64_t>(*end);
  for (auto start = late_start; start != late_starts_.end(); ++start) busy_late -= static_cast<std::uint64_t>(*start);
  const auto unmatched = static_cast<std::uint64_t>((late_ends_.end() - late_end) - (late_starts_.end() - late_start));
  busy_late -= static_cast<std::uint64_t>(from) * unmatched;
  const Micros window = run_end - from;
  if (window > 0 && workers > 0) {
    tail.utilisation_last_tenth =
        static_cast<double>(static_cast<Micros>(busy_late)) / (static_cast<double>(window) * static_cast<double>(workers));
  }
  return tail;
}

}  // namespace millrace::data
