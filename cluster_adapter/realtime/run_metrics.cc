#include "cluster_adapter/realtime/run_metrics.h"

#include <algorithm>

namespace millrace::cluster_adapter {

DurationHistogram::DurationHistogram(std::vector<data::Micros> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {
  std::sort(bounds_.begin(), bounds_.end());
}

std::vector<data::Micros> DurationHistogram::default_bounds() {
  using data::kMicrosPerMilli;
  using data::kMicrosPerSecond;
  return {100 * kMicrosPerMilli, 500 * kMicrosPerMilli, 1 * kMicrosPerSecond,  5 * kMicrosPerSecond,
          10 * kMicrosPerSecond, 30 * kMicrosPerSecond,  60 * kMicrosPerSecond, 300 * kMicrosPerSecond,
          600 * kMicrosPerSecond, 1800 * kMicrosPerSecond, 3600 * kMicrosPerSecond};
}

void DurationHistogram::observe(data::Micros duration) {
  auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), duration) - bounds_.begin();
  ++counts_[bucket];
  ++count_;
  sum_ += duration;
}

std::vector<std::int64_t> DurationHistogram::cumulative_counts() const {
  std::vector<std::int64_t> cumulative(counts_.size());
  std::int64_t running = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) cumulative[i] = running += counts_[i];
  return cumulative;
}

RunMetrics status_metrics(const scheduler::StatusReport& status) {
  RunMetrics metrics;
  metrics.items_total = static_cast<std::int64_t>(status.num_items);
  metrics.items_remaining = static_cast<std::int64_t>(status.num_remain);
  metrics.items_succeeded = static_cast<std::int64_t>(status.num_succeeded);
  metrics.items_failed = static_cast<std::int64_t>(status.jobs_failed.size());
  metrics.in_flight = static_cast<std::int64_t>(status.jobs_in_progress.size());
  metrics.slots = status.target;
  for (const scheduler::WorkerStatus& worker : status.workers) metrics.worker_busy[worker.name] = worker.busy_time;
  return metrics;
}

std::string prometheus_text(const RunMetrics& metrics) {
  PrometheusWriter out;
  out.gauge("millrace_items_total", "Work items in the run's plan.", metrics.items_total);
  out.gauge("millrace_items_remaining", "Work items not yet succeeded nor given up.", metrics.items_remaining);
  out.gauge("millrace_items_succeeded", "Work items that succeeded.", metrics.items_succeeded);
  out.gauge("millrace_items_failed", "Work items given up after their last attempt failed.", metrics.items_failed);
  out.gauge("millrace_attempts_in_flight", "Attempts submitted and not yet finished.", metrics.in_flight);
  out.gauge("millrace_worker_slots", "Attempts the concurrency policy runs at once now.", metrics.slots);
  if (metrics.eta) {
    const std::string eta = "millrace_eta_seconds";
    out.family(eta, "gauge",
               "Time the predicted work left takes on the run's slots: the predictions scaled by what the run "
               "learnt of them (expected) and the band of the model's noise and that ratio (p10, p90).");
    out.sample_seconds(eta, metrics.eta->expected, {{"estimate", "expected"}});
    out.sample_seconds(eta, metrics.eta->p10, {{"estimate", "p10"}});
    out.sample_seconds(eta, metrics.eta->p90, {{"estimate", "p90"}});
    out.family("millrace_run_ratio", "gauge",
               "Actual over the model's expected duration, summed over the items that succeeded with a prediction "
               "(1 before any); the ETA blends it in.");
    out.sample_real("millrace_run_ratio", metrics.eta->run_ratio);
  }
  out.family("millrace_attempts_failed_total", "counter", "Attempts that failed, timed out or were cancelled.");
  out.sample("millrace_attempts_failed_total", metrics.attempts_failed);

  const std::string histogram = "millrace_attempt_duration_seconds";
  out.family(histogram, "histogram", "Wall time of finished attempts.");
  const DurationHistogram& durations = metrics.attempt_durations;
  std::vector<std::int64_t> cumulative = durations.cumulative_counts();
  for (std::size_t i = 0; i < durations.bounds().size(); ++i) {
    out.sample(histogram + "_bucket", cumulative[i], {{"le", prometheus_seconds(durations.bounds()[i])}});
  }
  out.sample(histogram + "_bucket", cumulative.back(), {{"le", "+Inf"}});
  out.sample_seconds(histogram + "_sum", durations.sum());
  out.sample(histogram + "_count", durations.count());

  const std::string busy = "millrace_worker_busy_seconds_total";
  out.family(busy, "counter", "Time each worker spent running finished attempts.");
  for (const auto& [worker, time] : metrics.worker_busy) out.sample_seconds(busy, time, {{"worker", worker}});
  return out.text();
}

}  // namespace millrace::cluster_adapter
