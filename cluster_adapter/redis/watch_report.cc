#include "cluster_adapter/redis/watch_report.h"

#include <algorithm>

#include "cluster_adapter/realtime/live_status.h"
#include "data/kept_prediction.h"

namespace millrace::cluster_adapter {

namespace {

nlohmann::json run_parameters(const data::Run& run) { return nlohmann::json::parse(run.parameters, nullptr, false); }

}  // namespace

WatchReport::WatchReport(const std::vector<data::WorkItem>& items, const std::vector<data::Attempt>& recorded,
                         const data::Run& run, std::string where)
    : remaining_(items, data::kept_noise(run_parameters(run), "run " + std::to_string(run.id))
                            .value_or(data::DurationNoise{})),
      run_id_(run.id),
      where_(std::move(where)),
      prediction_(data::to_json(data::kept_makespan_prediction(run_parameters(run)))) {
  for (const data::WorkItem& item : items) {
    plan_.push_back(item.id);
    items_[item.id].range = item.range ? item.range->text() : item.id;
  }
  for (const data::Attempt& attempt : recorded) record(attempt);
}

void WatchReport::record(const data::Attempt& attempt) {
  ItemRecord& item = items_[attempt.item_id];
  item.attempts = std::max(item.attempts, attempt.number);
  item.worker = attempt.worker;
  WorkerRecord& worker = workers_[attempt.worker];
  worker.busy += attempt.duration();
  durations_.observe(attempt.duration());
  if (attempt.outcome == data::Outcome::kSucceeded) {
    item.succeeded = true;
    ++worker.succeeded;
    remaining_.observe(attempt.item_id, attempt.duration());
  } else {
    item.reason = attempt.failure_reason;
    ++worker.failed;
    ++attempts_failed_;
  }
}

void WatchReport::observe(const WatchStep& step) {
  now_ = step.now;
  in_progress_ = step.queue.in_progress;
  holds_ = step.state.holds;
  heartbeating_ = step.queue.heartbeating;
  failed_.clear();
  for (const std::string& entry : step.queue.failed) failed_.insert(entry.substr(0, entry.find('|')));
  for (const data::Attempt& attempt : step.recorded) {
    record(attempt);
    timeline_.observe(attempt);
  }
  // A range held now is its worker's running attempt (the next one of its item); one no longer
  // held without a recorded end (re-queued, or finished under another worker's name) is dropped.
  std::map<std::string, data::Attempt> running;
  for (const auto& [range, hold] : holds_) {
    auto item = items_.find(range);
    if (item == items_.end()) continue;
    data::Attempt& attempt = running[range];
    attempt.item_id = range;
    attempt.number = item->second.attempts + 1;
    attempt.worker = hold.worker;
    attempt.start = hold.since;
    attempt.outcome = data::Outcome::kRunning;
  }
  for (const auto& [range, shown] : shown_running_) {
    auto now_running = running.find(range);
    if (now_running == running.end() || now_running->second.worker != shown.worker ||
        now_running->second.number != shown.number) {
      timeline_.drop_running(shown.worker, shown.item_id, shown.number);
    }
  }
  for (const auto& [range, attempt] : running) timeline_.observe(attempt);
  shown_running_ = std::move(running);
  for (const std::string& range : failed_) {
    if (items_.contains(range) && !items_[range].succeeded) remaining_.settle(range);
  }
}

std::string WatchReport::range_text(const std::string& id) const {
  const auto item = items_.find(id);
  return item == items_.end() || item->second.range.empty() ? id : item->second.range;
}

scheduler::StatusReport WatchReport::status() const {
  scheduler::StatusReport report;
  report.at = now_;
  report.policy = "redis queue";
  std::set<std::string> workers = heartbeating_;
  for (const auto& [range, hold] : holds_) {
    if (!hold.worker.empty()) workers.insert(hold.worker);
  }
  report.target = static_cast<int>(workers.size());
  report.num_items = plan_.size();
  for (const std::string& id : plan_) {
    const ItemRecord& item = items_.at(id);
    if (item.succeeded) {
      ++report.num_succeeded;
    } else if (failed_.contains(id)) {
      report.jobs_failed.push_back(scheduler::FailedJob{id, range_text(id), item.worker, item.attempts, item.reason});
    }
  }
  report.run_failed = !report.jobs_failed.empty();
  report.num_remain = report.num_items - report.num_succeeded - report.jobs_failed.size();
  report.jobs_in_progress = in_progress_;
  for (const auto& [name, record] : workers_) workers.insert(name);
  for (const std::string& name : workers) {
    if (name.empty()) continue;
    scheduler::WorkerStatus w{name, false, "", 0, 0, 0};
    for (const auto& [range, hold] : holds_) {
      if (hold.worker == name) {
        w.busy = true;
        w.range = range_text(range);
      }
    }
    if (auto record = workers_.find(name); record != workers_.end()) {
      w.busy_time = record->second.busy;
      w.succeeded = record->second.succeeded;
      w.failed = record->second.failed;
    }
    report.workers.push_back(w);
  }
  return report;
}

StatusDocuments WatchReport::documents() const {
  const scheduler::StatusReport report = status();
  const int slots = std::max(report.target, 1);
  nlohmann::json document = scheduler::to_json(report);
  document["run"] = {{"id", run_id_}, {"cluster", "redis queue"}, {"where", where_}};
  add_live_figures(document, report,
                   LiveFigures{remaining_.eta(slots), slots, remaining_.predicted(), timeline_.to_json(), prediction_},
                   [](const std::string&, int) { return std::vector<std::string>{}; });
  RunMetrics metrics = status_metrics(report);
  metrics.eta = remaining_.eta(slots);
  metrics.attempts_failed = attempts_failed_;
  metrics.attempt_durations = durations_;
  return {document.dump(), prometheus_text(metrics)};
}

}  // namespace millrace::cluster_adapter
