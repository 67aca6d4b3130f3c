#include "cluster_adapter/realtime/attempt_timeline.h"

#include <algorithm>

namespace millrace::cluster_adapter {

AttemptTimeline::AttemptTimeline(std::size_t per_worker) : per_worker_(std::max<std::size_t>(per_worker, 1)) {}

void AttemptTimeline::observe(const data::Attempt& attempt) {
  std::deque<data::Attempt>& attempts = workers_[attempt.worker];
  auto same = std::find_if(attempts.begin(), attempts.end(), [&](const data::Attempt& a) {
    return a.item_id == attempt.item_id && a.number == attempt.number;
  });
  if (same != attempts.end()) {
    *same = attempt;
    return;
  }
  attempts.push_back(attempt);
  if (attempts.size() > per_worker_) attempts.pop_front();
}

void AttemptTimeline::drop_running(const std::string& worker, const std::string& item, int number) {
  auto found = workers_.find(worker);
  if (found == workers_.end()) return;
  std::erase_if(found->second, [&](const data::Attempt& a) {
    return a.item_id == item && a.number == number && a.outcome == data::Outcome::kRunning;
  });
  if (found->second.empty()) workers_.erase(found);
}

nlohmann::json AttemptTimeline::to_json() const {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& [worker, attempts] : workers_) {
    nlohmann::json list = nlohmann::json::array();
    for (const data::Attempt& a : attempts) {
      const bool running = a.outcome == data::Outcome::kRunning;
      list.push_back({{"item", a.item_id},
                      {"attempt", a.number},
                      {"start_us", a.start},
                      {"end_us", running ? nlohmann::json(nullptr) : nlohmann::json(a.end)},
                      {"outcome", data::to_string(a.outcome)},
                      {"exit_code", a.exit_code},
                      {"reason", a.failure_reason}});
    }
    workers.push_back({{"worker", worker}, {"attempts", std::move(list)}});
  }
  return workers;
}

}  // namespace millrace::cluster_adapter
