// A run's summary (data/run_summary.h) as text: what `millrace show` prints for a stored run and
// `millrace run` prints for the real run it just drove, so the two read the same and compare
// line by line with the summary rows `millrace simulate` prints for a simulated run.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "data/records.h"
#include "data/run_summary.h"
#include "data/trace_store.h"

namespace millrace::cli {

// The run's name and source, items, attempts and the failed ones by kind (data/failure_summary.h),
// work, makespan, longest attempt, the queue waits (items with submit times), the items'
// requests, workers' busy time, the straggler tail and the top durations.
void print_run_summary(const data::Run& run, const std::vector<data::WorkItem>& items,
                       const std::vector<data::Attempt>& attempts, const data::RunSummary& summary, std::ostream& out);

// A stored run read once: its items, attempts and their summary, for the commands that print
// several things of it.
struct StoredRun {
  data::Run run;
  std::vector<data::WorkItem> items;
  std::vector<data::Attempt> attempts;
  data::RunSummary summary;
};
StoredRun read_stored_run(const data::TraceStore& store, std::int64_t run_id);

// A stored run as `show RUN` and the end of `run` print it: its summary, then its predictions
// against what happened (cli/prediction_text.h).
void print_stored_run(const StoredRun& stored, std::ostream& out);
void print_stored_run(const data::TraceStore& store, std::int64_t run_id, std::ostream& out);

}  // namespace millrace::cli
