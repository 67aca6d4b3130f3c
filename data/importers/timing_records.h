// Per-range timing records, the common content of the CSV and JSON importers: each record is
// one row of the timing table (data/timing_table.h) as text fields, turned into a Trace here
// so both formats accept the same columns with the same meaning:
//   item            item id (default: the range as END/COUNT)
//   first, count    the range [first, first + count), or
//   end_count       the range as END/COUNT (END inclusive), as parallel catch-up logs write it
//   type, payload, priority, submit_s, depends_on (space-separated ids)   item fields
//   attempt         attempt number (default: the item's previous attempts + 1)
//   worker          who ran the attempt
//   start_s, end_s  attempt start/end in seconds; when no record has start_s, each record's
//   duration_s      duration is laid back to back per worker from 0 (lay_back_to_back)
//   outcome         succeeded (default) | failed | cancelled | running
//   exit_code       default 0
//   failure_reason
//   work_ms         the part of the duration spent on per-unit work (e.g. transaction apply)
//   submitted_s     when the attempt was handed to the cluster (Job created, queued for a slot);
//                   a pod trace's one submit time per pod is the item's submit_s (a first
//                   attempt without submitted_s counts as submitted then: cluster fits read it so)
//   unschedulable_s when the scheduler first said its pod fits on no node (what makes an
//                   autoscaler order one; node arrivals: `import --nodes`, node_arrivals_csv.h)
//   scheduled_s     when it was placed (pod bound to a node, slot granted); node: where
//                   Phases need start_s/end_s and are in order:
//                   submitted <= unschedulable <= scheduled <= start.
//   request.NAME    the item's request of resource NAME, a Kubernetes quantity (data/quantity.h):
//                   request.cpu=250m, request.memory=512Mi, request.nvidia.com/gpu=1
// A record with no worker and no times plans an item that was never attempted. Several records
// with the same item are its successive attempts. An empty field counts as absent.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data/importers/trace_sink.h"

namespace millrace::data::importers {

struct TimingRecord {
  std::string where;                          // "file:line" or "file: row N"
  std::map<std::string, std::string> fields;  // column -> text; only non-empty fields
};

const std::vector<std::string>& timing_record_columns();

// Turns records into items and attempts of a sink as they are read, keeping no record: the
// CSV and JSON importers stream through it. Whether the attempts are timed (start_s/end_s) or
// laid back to back (duration_s) is settled by the first record with an attempt; a record of
// the other kind is an Error naming both.
class TimingRecordReader {
 public:
  explicit TimingRecordReader(TraceSink& sink) : sink_(sink) {}
  // Throws Error naming the record's `where` on a malformed record.
  void add(const TimingRecord& record);
  // After the last record: lays untimed attempts back to back (`input` names the source).
  void finish(const std::string& input);

 private:
  TraceSink& sink_;
  std::optional<bool> timed_;
  std::string first_attempt_where_;
};

}  // namespace millrace::data::importers
