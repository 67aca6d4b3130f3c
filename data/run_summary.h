// What happened in a run, in a few figures: how much work, the longest ranges, failures, how
// evenly the workers were kept busy, and the straggler tail (how the run ended: how long it ran
// on a few workers while the rest were idle). One summary and one definition of the tail for
// every run, recorded, real or simulated: the run spans from its first attempt's start to its
// last attempt's end, and the workers are the named ones that ran attempts. `millrace show`
// prints it for a stored run, `millrace run` for the real run it just drove, and `millrace
// simulate` for the simulated run (tallied as its attempts end, data/run_tally.h, which
// summarize() also uses), so the figures of a recording, of its replay and of a real run
// compare: the same attempts give the same summary wherever they come from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/busy_sweep.h"
#include "data/queue_waits.h"
#include "data/readable_duration.h"
#include "data/records.h"

namespace millrace::data {

// The tail of the attempts [starts[i], ends[i]) on workers, in any order (data/busy_sweep.h);
// `workers` is how many workers the run had.
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

struct RunSummary {
  std::size_t items = 0;
  std::size_t attempts = 0;
  std::size_t failed_attempts = 0;       // failed or cancelled
  std::size_t items_without_success = 0; // planned items no attempt succeeded for
  Micros total_work = 0;                 // sum of attempt durations (worker time)
  Micros work_time = 0;                  // sum of recorded per-unit work time (e.g. tx apply)
  Micros first_start = 0;                // the first attempt's start
  Micros makespan = 0;                   // first start to last end
  std::vector<Attempt> longest;          // the longest attempts, longest first

  // Per named worker (attempts with an empty worker are not counted here).
  std::size_t workers = 0;
  Micros busy_min = 0, busy_median = 0, busy_max = 0;
  StragglerTail tail;

  // Queue waits (submit -> first start), when the items have submit times (some submit_at > 0);
  // the span runs from the first submit to the last end. Filled by summarize(), which sees the items.
  bool has_submit_times = false;
  std::size_t never_started = 0;         // planned items without any attempt
  WaitSummary waits;
  friend bool operator==(const RunSummary&, const RunSummary&) = default;
};

RunSummary summarize(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts,
                     std::size_t longest = 5);

// One attempt as the summary reads it, its item and its worker by number: a run's attempts
// without their strings, as a simulation hands them to its tally (data/run_tally.h) and keeps them
// when asked for its attempt log (what else an attempt has, such as a reported work time, is kept
// aside by whoever has it).
struct AttemptSpan {
  static constexpr std::uint32_t kNoWorker = UINT32_MAX;  // not on a named worker
  std::uint32_t item = 0;                                 // >= the item count: not in the plan
  std::uint32_t worker = kNoWorker;                       // < the run's worker count
  Micros start = 0;
  Micros end = 0;
  Outcome outcome = Outcome::kSucceeded;
};

}  // namespace millrace::data
