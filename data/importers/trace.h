// What an importer produces before anything is written: a run with its items (plan order)
// and attempts. Importers parse a whole file into a Trace first and store it with one
// TraceStore::add_run, so a malformed file never leaves rows behind.
#pragma once

#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::data::importers {

struct Trace {
  Run run;
  std::vector<WorkItem> items;
  std::vector<Attempt> attempts;
};

// For recordings with durations but no start times: gives each worker's attempts, in the
// order they appear in `attempts`, back-to-back start times from 0 (each attempt keeps its
// duration, end - start). Throws Error(input, ...) naming the worker when its total passes
// kMaxMicros.
void lay_back_to_back(std::vector<Attempt>& attempts, const std::string& input);
// The end of an attempt of `duration` laid from `free_at` on its worker; throws Error(input, ...)
// naming the worker and the item when it passes kMaxMicros.
Micros back_to_back_end(Micros free_at, Micros duration, const std::string& worker, const std::string& item_id,
                        const std::string& input);

// Sets run.started / run.ended to the earliest start and latest end of the attempts.
void set_run_span(Trace& trace);

}  // namespace millrace::data::importers
