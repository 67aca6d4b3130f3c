// The ready queue: items whose dependencies are met, served in the run's queue order. The order
// is fixed before the run as a rank per item (plan order; longest-predicted-first, LPT; or
// priority, larger first; or tip first, the range with the highest last unit first, as parallel
// catch-ups hand out ranges), ties always broken by plan position so schedules are reproducible.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/records.h"
#include "scheduler/planned_work.h"

namespace millrace::scheduler {

enum class QueueOrder { kPlan, kLongestFirst, kPriority, kTipFirst };

const char* to_string(QueueOrder order);
// Accepts "plan", "lpt", "priority" and "tip-first"; throws data::Error naming the text and the known names.
QueueOrder queue_order_from_string(const std::string& text);

class WorkQueue {
 public:
  WorkQueue(const PlannedWork& plan, QueueOrder order);

  void push(std::size_t index) {
    std::size_t rank = rank_.empty() ? index : rank_[index];
    ready_[rank / 64] |= std::uint64_t{1} << (rank % 64);
    first_word_ = std::min(first_word_, rank / 64);
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Removes and returns the first ready item (in queue order) that `admits` accepts, or
  // `npos` when none does.
  template <typename Admits>
  std::size_t pop_first(Admits&& admits) {
    while (first_word_ < ready_.size() && ready_[first_word_] == 0) ++first_word_;
    for (std::size_t w = first_word_; w < ready_.size(); ++w) {
      for (std::uint64_t bits = ready_[w]; bits != 0; bits &= bits - 1) {
        std::size_t rank = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
        std::size_t index = item_at_.empty() ? rank : item_at_[rank];
        if (admits(index)) {
          ready_[w] &= ~(std::uint64_t{1} << (rank % 64));
          --size_;
          return index;
        }
      }
    }
    return npos;
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  // Both empty in plan order, where an item's rank is its index.
  std::vector<std::uint32_t> rank_;     // item index -> rank
  std::vector<std::uint32_t> item_at_;  // rank -> item index
  std::vector<std::uint64_t> ready_;  // bit per rank: ready
  std::size_t first_word_ = 0;        // no ready bit below this word
  std::size_t size_ = 0;
};

}  // namespace millrace::scheduler
