// The ready queue: items whose dependencies are met, served in the run's queue order. The order
// is fixed before the run as a rank per item (plan order; longest-predicted-first, LPT; or
// priority, larger first; or tip first, the range with the highest last unit first, as parallel
// catch-ups hand out ranges), ties always broken by plan position so schedules are reproducible.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::scheduler {

enum class QueueOrder { kPlan, kLongestFirst, kPriority, kTipFirst };

const char* to_string(QueueOrder order);
// Accepts "plan", "lpt", "priority" and "tip-first"; throws data::Error naming the text and the known names.
QueueOrder queue_order_from_string(const std::string& text);

class WorkQueue {
 public:
  WorkQueue(const std::vector<data::WorkItem>& items, QueueOrder order);

  void push(std::size_t index) { ready_.insert(rank_[index]); }
  void erase(std::size_t index) { ready_.erase(rank_[index]); }
  bool empty() const { return ready_.empty(); }
  std::size_t size() const { return ready_.size(); }

  // Removes and returns the first ready item (in queue order) that `admits` accepts, or
  // `npos` when none does.
  template <typename Admits>
  std::size_t pop_first(Admits&& admits) {
    for (auto it = ready_.begin(); it != ready_.end(); ++it) {
      std::size_t index = item_at_[*it];
      if (admits(index)) {
        ready_.erase(it);
        return index;
      }
    }
    return npos;
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  std::vector<std::size_t> rank_;     // item index -> rank
  std::vector<std::size_t> item_at_;  // rank -> item index
  std::set<std::size_t> ready_;       // ranks of ready items
};

}  // namespace millrace::scheduler
