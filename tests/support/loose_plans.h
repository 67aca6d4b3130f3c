// Submissions of items that are in no scheduler's plan, for cluster tests: each item is put in a
// one-item plan of its own (scheduler::PlannedWork), and the worker's name (which a Submission
// only views) is copied, both kept until the test program ends.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "data/records.h"
#include "scheduler/cluster.h"
#include "scheduler/planned_work.h"

namespace millrace::test_support {

inline scheduler::Submission loose_submission(scheduler::AttemptHandle handle, const data::WorkItem& item,
                                              int attempt = 1, std::string_view worker = {},
                                              int lane = scheduler::kNoLane) {
  static std::mutex mutex;
  static std::deque<scheduler::PlannedWork> plans;
  static std::deque<std::string> workers;
  std::lock_guard lock(mutex);
  const scheduler::PlannedWork& plan = plans.emplace_back(std::vector<data::WorkItem>{item}, "test plan");
  const std::string_view kept = worker.empty() ? std::string_view() : std::string_view(workers.emplace_back(worker));
  return scheduler::Submission{handle, &plan, 0, attempt, kept, lane};
}

}  // namespace millrace::test_support
