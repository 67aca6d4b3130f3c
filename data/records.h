// The domain's records: what a run is made of. A Run plans WorkItems (usually each a Range of
// units such as ledgers or blocks) and records one Attempt per try of an item.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data/quantity.h"
#include "data/time.h"

namespace millrace::data {

// A contiguous span of units [first, first + count). Units are e.g. ledgers or blocks.
struct Range {
  std::int64_t first = 0;
  std::int64_t count = 0;

  std::int64_t last() const { return first + count - 1; }  // inclusive
  std::int64_t end() const { return first + count; }       // exclusive
  // The "END/COUNT" form used by parallel catch-up deployments (END = last unit, inclusive): for
  // the files, queues and item ids in that form.
  std::string end_count() const { return std::to_string(last()) + "/" + std::to_string(count); }
  // The one name a person reads for it wherever millrace prints a range (show, fit, the live
  // page's failures and workers): "FIRST-LAST", both inclusive ("2500-2749").
  std::string text() const { return std::to_string(first) + "-" + std::to_string(last()); }

  friend bool operator==(const Range&, const Range&) = default;
};

// One unit of schedulable work: a range of the sequence, or an opaque payload (a recorded job).
struct WorkItem {
  std::string id;                      // unique within its run
  std::optional<Range> range;          // set for range work
  std::string payload;                 // opaque parameters for non-range work
  std::string type = "range";          // job type; concurrency limits may be per type
  std::vector<std::string> depends_on; // ids of items that must succeed first
  int priority = 0;                    // larger runs earlier under priority order
  Micros submit_at = 0;                // earliest start (recorded traces with submit times)
  Micros predicted = 0;                // predicted duration, 0 when unknown
  // Resource requests in milli-units (data/quantity.h), by resource name as Kubernetes names
  // them ("cpu", "memory", "nvidia.com/gpu"); empty when the item asks for nothing in particular.
  Quantities requests;

  friend bool operator==(const WorkItem&, const WorkItem&) = default;
};

enum class Outcome { kSucceeded, kFailed, kCancelled, kRunning };

const char* to_string(Outcome outcome);
// Throws Error naming `input` when `text` is not one of the names to_string produces.
Outcome outcome_from_string(const std::string& text, const std::string& input);

// One try of one item on one worker (a pod, a process, a simulated slot). Its phases, in order:
// submitted to the cluster (Job created, queued for a slot), placed (pod bound to a node, local
// slot granted), working (container running, process spawned) = start, and ended = end. The
// first two are optional: recordings and stores from before they were kept know only start/end.
struct Attempt {
  std::string item_id;
  int number = 1;                      // 1 for the first try, 2 for the first retry, ...
  std::string worker;
  Micros start = 0;                    // its work started (container running, process spawned)
  Micros end = 0;
  Outcome outcome = Outcome::kSucceeded;
  int exit_code = 0;
  std::string failure_reason;          // empty unless failed or cancelled
  std::optional<Micros> work_time;     // part of the duration spent on per-unit work (e.g. tx apply)
  std::optional<Micros> submitted;     // handed to the cluster, when recorded
  std::optional<Micros> placed;        // placed on a node or slot, when recorded
  std::string node;                    // the node or slot it was placed on, "" when not recorded
  // when the scheduler first said its pod fits on no node (Kubernetes: PodScheduled=False,
  // reason Unschedulable), when recorded: what makes an autoscaler order a node
  std::optional<Micros> unschedulable{};

  Micros duration() const { return end - start; }
  friend bool operator==(const Attempt&, const Attempt&) = default;
};

// A node that joined a run's cluster while it ran (an autoscaled pool's new node): when the
// cluster created it and when it became ready to take pods, each when recorded; and when it left,
// and whether it was spot capacity, from which spot pools' interruption rates are fitted.
struct NodeArrival {
  std::string node;
  std::string pool;                    // its node pool, "" when not known
  std::optional<Micros> created;
  std::optional<Micros> ready;
  std::optional<Micros> departed{};    // when it left the cluster (deleted), if it did while watched
  std::string capacity_type{};         // "spot", "on-demand", "" when its labels do not say
  bool present_at_start = false;       // there before the run (a spot node watched for departure):
                                       // not an arrival of the run

  friend bool operator==(const NodeArrival&, const NodeArrival&) = default;
};

// Where a run's records came from.
enum class RunSource { kRecorded, kImported, kSimulated, kReal };

const char* to_string(RunSource source);
RunSource run_source_from_string(const std::string& text, const std::string& input);

// A run: its plan (items) and what happened (attempts).
struct Run {
  std::int64_t id = 0;                 // assigned by the trace store
  std::string name;
  RunSource source = RunSource::kImported;
  std::string units = "units";         // what a range counts: ledgers, blocks, jobs, ...
  std::string partitioner;
  std::string policy;
  std::string parameters = "{}";       // JSON object text
  Micros started = 0;
  Micros ended = 0;

  friend bool operator==(const Run&, const Run&) = default;
};

}  // namespace millrace::data
