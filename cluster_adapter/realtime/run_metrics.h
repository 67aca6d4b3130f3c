// What a real run exposes to Prometheus: item counts, attempts in flight and the slots the
// policy runs them in, the ETA with its band, a histogram of attempt durations and each worker's busy time, rendered in the text exposition format (version 0.0.4)
// for GET /metrics. The loop thread fills a RunMetrics from the scheduler's status and the
// attempts it observed, renders it, and publishes the text to the status server.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster_adapter/http/prometheus.h"
#include "cluster_adapter/realtime/remaining_work.h"
#include "data/time.h"
#include "scheduler/status_report.h"

namespace millrace::cluster_adapter {

// Cumulative-bucket histogram of durations, kept in integer microseconds.
class DurationHistogram {
 public:
  // Upper bounds (inclusive) of the finite buckets, ascending; +Inf is implicit.
  explicit DurationHistogram(std::vector<data::Micros> bounds = default_bounds());
  static std::vector<data::Micros> default_bounds();  // 0.1 s .. 1 h

  void observe(data::Micros duration);
  const std::vector<data::Micros>& bounds() const { return bounds_; }
  // Observations <= bounds()[i] (cumulative), then all of them for +Inf.
  std::vector<std::int64_t> cumulative_counts() const;
  std::int64_t count() const { return count_; }
  data::Micros sum() const { return sum_; }

 private:
  std::vector<data::Micros> bounds_;
  std::vector<std::int64_t> counts_;  // per bucket, not cumulative; last is +Inf
  std::int64_t count_ = 0;
  data::Micros sum_ = 0;
};

struct RunMetrics {
  std::int64_t items_total = 0;
  std::int64_t items_remaining = 0;
  std::int64_t items_succeeded = 0;
  std::int64_t items_failed = 0;
  std::int64_t in_flight = 0;
  std::int64_t slots = 0;                 // attempts the policy runs at once now
  std::optional<EtaBand> eta;             // none: nothing predicted
  std::int64_t attempts_failed = 0;
  DurationHistogram attempt_durations;
  std::map<std::string, data::Micros> worker_busy;  // by worker name
};

// The counts of a status report: items, in flight, slots (its target), each worker's busy time.
RunMetrics status_metrics(const scheduler::StatusReport& status);

// Prometheus text exposition: HELP and TYPE lines, then samples, metric names prefixed millrace_.
std::string prometheus_text(const RunMetrics& metrics);

}  // namespace millrace::cluster_adapter
