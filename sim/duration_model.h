// Where simulated durations come from: a recorded run (same partition: each item's recorded
// duration as it is) or a cost model (a new partition: predicted from the item's range). The
// simulator only needs "item -> duration"; the fitted cost model plugs in as such a function.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/records.h"
#include "data/time.h"

namespace millrace::sim {

using DurationModel = std::function<data::Micros(const data::WorkItem&)>;

// Each item's duration in a recorded run: that of its last succeeded attempt, else of its last
// attempt. Throws data::Error naming `run_name` and the item when an item has no attempt.
std::unordered_map<std::string, data::Micros> recorded_durations(const std::vector<data::WorkItem>& items,
                                                                 const std::vector<data::Attempt>& attempts,
                                                                 const std::string& run_name);

// A model answering from a table of durations by item id; throws data::Error naming `run_name`
// for an item the table lacks.
DurationModel table_model(std::unordered_map<std::string, data::Micros> durations, std::string run_name);

}  // namespace millrace::sim
