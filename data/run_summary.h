// What happened in a run, in a few figures: how much work, the longest ranges, failures,
// how evenly the workers were kept busy, and the straggler tail (how long the last ranges ran
// after most workers had gone idle). `millrace show` prints it; the main job reports it for
// the recorded catch-up.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::data {

struct RunSummary {
  std::size_t items = 0;
  std::size_t attempts = 0;
  std::size_t failed_attempts = 0;       // failed or cancelled
  std::size_t items_without_success = 0; // planned items no attempt succeeded for
  Micros total_work = 0;                 // sum of attempt durations (worker time)
  Micros work_time = 0;                  // sum of recorded per-unit work time (e.g. tx apply)
  Micros makespan = 0;                   // first start to last end
  std::vector<Attempt> longest;          // the longest attempts, longest first

  // Per named worker (attempts with an empty worker are not counted here).
  std::size_t workers = 0;
  Micros busy_min = 0, busy_median = 0, busy_max = 0;
  // Straggler tail, times from the run's first start: when half and when 90% of the workers
  // had finished their last attempt, and how many attempts were still running at the 90% mark.
  Micros half_idle_at = 0;
  Micros most_idle_at = 0;
  std::size_t running_when_most_idle = 0;
  Micros tail() const { return makespan - most_idle_at; }  // run time left after most were idle
};

RunSummary summarize(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts,
                     std::size_t longest = 5);

}  // namespace millrace::data
