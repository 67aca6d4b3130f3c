// Imports a Standard Workload Format log (Parallel Workloads Archive, SWF v2.2; plain or .gz):
// ';' header comments ("; Key: value", kept in the run's parameters), then one job per line of
// 18 whitespace-separated numeric fields, -1 meaning unknown:
//   1 job  2 submit  3 wait  4 run time  5 allocated processors  6 average CPU time
//   7 used memory  8 requested processors  9 requested time  10 requested memory  11 status
//   12 user  13 group  14 executable  15 queue  16 partition  17 preceding job  18 think time
// Each job becomes a WorkItem (id = job number, type "job", submit_at = submit, payload = a
// JSON object of the known fields 5-10 and 12-18, depends_on = the preceding job when it came
// earlier in the log, requests {"cpu": processors}, from field 5 or else field 8 when known) and, when its run time is known, an Attempt: start = submit + wait (unknown wait
// counts as 0), end = start + run time, worker = "partition-N" when the partition is known.
// Status: 1 and -1 (not recorded; a job with a run time ran) -> succeeded; 2-4 (partial
// executions) -> succeeded; 0 -> failed, exit code 1; 5 -> cancelled, exit code 1.
// Numbers that become integers (job, status, partition) must be whole; times must be at most
// kMaxMicros (data/checked_numbers.h). Read one line at a time into a TraceSink.
#pragma once

#include <string>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

Run read_swf(const std::string& path, TraceSink& sink);
Trace read_swf(const std::string& path);

}  // namespace millrace::data::importers
