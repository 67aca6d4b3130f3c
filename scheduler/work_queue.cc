#include "scheduler/work_queue.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "data/error.h"

namespace millrace::scheduler {

namespace {
constexpr const char* kOrderNames[] = {"plan", "lpt", "priority", "tip-first"};
constexpr int kOrders = 4;
}  // namespace

const char* to_string(QueueOrder order) { return kOrderNames[static_cast<int>(order)]; }

QueueOrder queue_order_from_string(const std::string& text) {
  for (int i = 0; i < kOrders; ++i) {
    if (text == kOrderNames[i]) return static_cast<QueueOrder>(i);
  }
  throw data::Error("queue order '" + text + "'", "unknown (known: plan, lpt, priority, tip-first)");
}

WorkQueue::WorkQueue(const PlannedWork& plan, QueueOrder order) : ready_((plan.size() + 63) / 64, 0) {
  if (order == QueueOrder::kPlan) return;
  item_at_.resize(plan.size());
  std::iota(item_at_.begin(), item_at_.end(), std::uint32_t{0});
  if (order == QueueOrder::kLongestFirst) {
    std::stable_sort(item_at_.begin(), item_at_.end(),
                     [&](std::size_t a, std::size_t b) { return plan.predicted(a) > plan.predicted(b); });
  } else if (order == QueueOrder::kTipFirst) {
    auto top = [&](std::size_t i) {
      const data::Range* range = plan.range(i);
      return range != nullptr ? range->last() : std::numeric_limits<std::int64_t>::min();
    };
    std::stable_sort(item_at_.begin(), item_at_.end(), [&](std::size_t a, std::size_t b) { return top(a) > top(b); });
  } else if (order == QueueOrder::kPriority) {
    std::stable_sort(item_at_.begin(), item_at_.end(),
                     [&](std::size_t a, std::size_t b) { return plan.priority(a) > plan.priority(b); });
  }
  rank_.resize(plan.size());
  for (std::size_t r = 0; r < item_at_.size(); ++r) rank_[item_at_[r]] = static_cast<std::uint32_t>(r);
}

}  // namespace millrace::scheduler
