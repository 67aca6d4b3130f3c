#include "cluster_adapter/kubernetes/kubernetes_resume.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace millrace::cluster_adapter {

void add_unrecorded_jobs(scheduler::SchedulerSnapshot& snapshot, const std::vector<ExistingJob>& jobs,
                         data::Micros now) {
  std::map<std::string, int> latest;
  for (const ExistingJob& job : jobs) {
    int& attempt = latest[job.item_id];
    attempt = std::max(attempt, job.attempt);
  }
  for (scheduler::ItemSnapshot& item : snapshot.items) {
    auto job = latest.find(item.id);
    if (job == latest.end() || item.state != scheduler::ItemState::kWaiting || job->second <= item.attempts) continue;
    item.attempts = job->second;
    scheduler::InFlight flight;
    flight.handle = snapshot.next_handle++;
    flight.item_id = item.id;
    flight.attempt = job->second;
    flight.submitted = now;
    snapshot.in_flight.push_back(flight);
  }
}

std::vector<std::string> stale_jobs(const scheduler::SchedulerSnapshot& snapshot, const std::vector<ExistingJob>& jobs) {
  std::set<std::pair<std::string, int>> in_flight;
  for (const scheduler::InFlight& flight : snapshot.in_flight) in_flight.emplace(flight.item_id, flight.attempt);
  std::vector<std::string> stale;
  for (const ExistingJob& job : jobs) {
    if (!job.finished && !job.item_id.empty() && !in_flight.count({job.item_id, job.attempt})) {
      stale.push_back(job.name);
    }
  }
  return stale;
}

void adopt_in_flight(KubernetesCluster& cluster, const scheduler::PlannedWork& plan,
                     const scheduler::SchedulerSnapshot& snapshot) {
  std::map<std::string, std::uint32_t> by_id;
  for (std::size_t i = 0; i < plan.size(); ++i) by_id[plan.id(i)] = static_cast<std::uint32_t>(i);
  for (const scheduler::InFlight& flight : snapshot.in_flight) {
    cluster.adopt(scheduler::Submission{flight.handle, &plan, by_id.at(flight.item_id), flight.attempt, {}});
  }
}

}  // namespace millrace::cluster_adapter
