// What an importer produces before anything is written: a run with its items (plan order)
// and attempts. Importers parse a whole file into a Trace first and store it with one
// TraceStore::add_run, so a malformed file never leaves rows behind.
#pragma once

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
// duration, end - start).
void lay_back_to_back(std::vector<Attempt>& attempts);

// Sets run.started / run.ended to the earliest start and latest end of the attempts.
void set_run_span(Trace& trace);

}  // namespace millrace::data::importers
