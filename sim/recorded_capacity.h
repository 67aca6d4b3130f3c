// A recorded run on the capacity it ran on, as the cluster fit (sim/cluster_fit.h) and its
// fidelity checks (sim/cluster_fidelity.h) replay it: the recorded policy and worker count, and
// the recorded slots or the node pools given for it. What is not given comes from the run itself:
// its policy (a payload trace without one: one Job per item, as many at once as it has items),
// its "workers" parameter or else its named workers, and as many slots as it ran attempts at once
// at its peak (a pool: one per worker). The description says which is which.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "data/records.h"
#include "sim/node_pools.h"
#include "sim/replay.h"
#include "sim/simulation.h"

namespace millrace::sim {

// What is given of the capacity; empty or 0: the run's own.
struct CapacityGiven {
  std::string policy;
  int workers = 0;                     // pool size, or job-per-item's cap
  int nodes = 0;                       // slots: nodes x slots_per_node
  int slots_per_node = 1;
  NodePoolsConfig pools;               // replaces the slots (job-per-item)
  std::map<std::string, int> type_limits;
};

struct Recording {
  std::string name;
  std::vector<data::WorkItem> items;
  std::vector<data::Attempt> attempts;
  // Policy, workers and type limits (scheduler), slots or pools (cluster); nothing else set.
  SimulationConfig capacity;
  std::string capacity_text;           // e.g. "job-per-item, up to 400 at once, on 32 slots (peak recorded)"
  // One Job per item with every attempt's node and some item's requests recorded, and no capacity
  // given: each recorded node as large as the most its pods held at once, resource by resource
  // (the rule slots follow, for resources), and the capacity is these nodes (as pools of equal
  // ones). With requests but no node recorded at all (an SWF log's processors), one machine,
  // named "", the same way. Empty otherwise.
  std::map<std::string, data::Quantities> node_capacity;
  std::vector<data::NodeArrival> node_arrivals;  // nodes that joined its cluster while it ran
  std::string node_arrivals_unrecorded;          // why a run that watched for them has none

  bool pool_workers() const { return capacity.scheduler.policy != "job-per-item"; }
};

// One attempted item of a recording as the cluster fit and its fidelity checks see it.
struct ItemTrace {
  const data::WorkItem* item = nullptr;
  data::Micros submitted = 0;       // first attempt's submission, else the item's submit time
  data::Micros placed = 0;          // first attempt's placement, else its start
  bool placement_recorded = false;
  data::Micros started = 0;         // first attempt's start
  data::Micros hold = 0;            // what its deciding attempt held a slot: placed (or start) to end
  data::Micros work = 0;            // its deciding attempt's start to end
  data::Micros ended = 0;           // its deciding attempt's end
};

// An attempt taking its room (at its placement, else its start) or giving it back (at its end,
// never before its placement).
struct RoomChange {
  data::Micros at = 0;
  bool ends = false;
  const data::Attempt* attempt = nullptr;
};

// Every attempt's two room changes in time order, give-backs first at one instant (an attempt
// ending as another is placed hands its room over).
std::vector<RoomChange> room_changes(const std::vector<data::Attempt>& attempts);

// The recording's attempted items, in plan order (items never attempted are left out).
std::vector<ItemTrace> item_traces(const Recording& recording);

// Throws data::Error naming the run for an unknown policy given or recorded.
Recording on_recorded_capacity(RecordedRun recorded, const CapacityGiven& given);

// The first `share` of the items in the order they were submitted (submitted_at below; ties in
// plan order), with their attempts, on the same capacity; dependencies on the rest dropped.
Recording earliest(const Recording& recording, double share);

// When each item was handed to the cluster: its first attempt's recorded submission, else its
// submit time (by item id).
std::map<std::string, data::Micros> submitted_at(const std::vector<data::WorkItem>& items,
                                                 const std::vector<data::Attempt>& attempts);

}  // namespace millrace::sim
