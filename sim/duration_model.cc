#include "sim/duration_model.h"

#include <memory>

#include "data/error.h"

namespace millrace::sim {

std::unordered_map<std::string, data::Micros> recorded_durations(const std::vector<data::WorkItem>& items,
                                                                 const std::vector<data::Attempt>& attempts,
                                                                 const std::string& run_name) {
  std::unordered_map<std::string, data::Micros> any;
  std::unordered_map<std::string, data::Micros> succeeded;
  for (const data::Attempt& a : attempts) {
    any[a.item_id] = a.duration();
    if (a.outcome == data::Outcome::kSucceeded) succeeded[a.item_id] = a.duration();
  }
  std::unordered_map<std::string, data::Micros> durations;
  for (const data::WorkItem& item : items) {
    auto found = succeeded.find(item.id);
    if (found == succeeded.end()) found = any.find(item.id);
    if (found == any.end()) throw data::Error(run_name, "item '" + item.id + "' has no recorded attempt");
    durations[item.id] = found->second;
  }
  return durations;
}

DurationModel table_model(std::unordered_map<std::string, data::Micros> durations, std::string run_name) {
  auto table = std::make_shared<const std::unordered_map<std::string, data::Micros>>(std::move(durations));
  return [table, run_name = std::move(run_name)](const data::WorkItem& item) {
    auto found = table->find(item.id);
    if (found == table->end()) throw data::Error(run_name, "no duration for item '" + item.id + "'");
    return found->second;
  };
}

}  // namespace millrace::sim
