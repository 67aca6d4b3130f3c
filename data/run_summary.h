// What happened in a run, in a few figures: how much work, the longest ranges, failures, how
// evenly the workers were kept busy, and the straggler tail (how the run ended: how long it ran
// on a few workers while the rest were idle). One summary and one definition of the tail for
// every run, recorded, real or simulated: `millrace show` prints it for a stored run, and
// `millrace simulate` computes the simulated run's tail with the same straggler_tail() and
// prints it with the same rows (tail_rows), so the figures of a recording and of its replay
// compare.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/queue_waits.h"
#include "data/records.h"

namespace millrace::data {

// The straggler tail, over the busy profile of a run: at each moment, how many attempts run on
// a worker (attempts with a worker and a positive duration). The run spans from its start (a
// simulation's time 0, a recording's first start) to its last end.
struct StragglerTail {
  Micros below_tenth = 0;              // final stretch with fewer than 10% of the peak busy workers
  Micros last_alone = 0;               // how long the last attempt ran with nothing else running
  double utilisation_last_tenth = 0;   // busy share of the workers in the last 10% of the span
};

// `starts` and `ends` of the attempts on workers (each attempt's end after its start), each in
// any order; `workers` is how many workers the run had.
StragglerTail straggler_tail(std::vector<Micros> starts, std::vector<Micros> ends, Micros run_start,
                             Micros run_end, std::size_t workers);

// The tail as the rows `show` and `simulate` both print: a label and its value.
struct TailRow {
  const char* label;
  std::string value;
};
std::vector<TailRow> tail_rows(const StragglerTail& tail);

// {"below_tenth_us", "last_alone_us", "utilisation_last_tenth"}
nlohmann::json to_json(const StragglerTail& tail);

// "12.345 s", or "12345.000 s (3.43 h)" from an hour up.
std::string duration_text(Micros us);

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
  StragglerTail tail;

  // Queue waits (submit -> first start), when the items have submit times (some submit_at > 0);
  // the span runs from the first submit to the last end.
  bool has_submit_times = false;
  std::size_t never_started = 0;         // planned items without any attempt
  WaitSummary waits;
};

RunSummary summarize(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts,
                     std::size_t longest = 5);

}  // namespace millrace::data
