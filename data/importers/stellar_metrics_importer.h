// Imports the workers' metrics set of a stellar parallel catch-up as dumped with
// `redis-cli SMEMBERS metrics > file`: one entry `END/COUNT|worker_id|tx_apply_ms|duration` a
// line (duration in seconds; the "ms"/"s" units optional, tx_apply "N/A" when the worker found
// no metric). A `N) "..."` prefix and quotes, as redis-cli prints to a terminal, are accepted;
// blank lines are skipped. Malformed lines are reported as "file:line". Entries become items and
// attempts as stellar_trace.h describes (StellarRecording) (a range on several lines, re-run after a re-queue, is
// one item with an attempt per line); the run's parameters also record the overlap, COUNT
// minus the most common distance between consecutive ENDs (320 for 16000/16320 ranges): the
// item keeps the range its worker replayed, overlap included, so a replay charges the overlap
// to its range, while `overlap` tells the cost model which units are counted twice.
#pragma once

#include <string>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

Run read_stellar_metrics(const std::string& path, TraceSink& sink);
Trace read_stellar_metrics(const std::string& path);

}  // namespace millrace::data::importers
