// Queue waits: how long items waited from their submit time to their first start, as
// percentiles, and how many were pending on average over the run (the time integral of
// "submitted, not yet started" divided by the run's span). One definition for recorded runs
// (`show`) and simulated ones (`simulate`, `compare`, `plan`), so the two compare.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/time.h"

namespace millrace::data {

struct WaitSummary {
  std::size_t items = 0;       // items with a start
  Micros p50 = 0, p90 = 0, p99 = 0, max = 0;  // nearest-rank percentiles of start - submit
  double mean_pending = 0;     // time-averaged items submitted and not yet started
  friend bool operator==(const WaitSummary&, const WaitSummary&) = default;
};

// The waits of the items that started, each its first start - its submit time (in item order; a
// start before the submit time waited nothing), over the span [span_start, span_end] (the
// pending average divides by it; 0 when the span is empty).
WaitSummary summarize_wait_times(std::vector<Micros> waits, Micros span_start, Micros span_end);

// The nearest-rank percentile (0 < p <= 1) of sorted values: the ceil(p x n)-th smallest.
Micros nearest_rank(const std::vector<Micros>& sorted, double p);

// {"items", "p50_us", "p90_us", "p99_us", "max_us", "mean_pending"}
nlohmann::json to_json(const WaitSummary& waits);

// "p50 1.000 s, p90 ..., p99 ..., max ...; 2.50 pending on average"
std::string waits_text(const WaitSummary& waits);

}  // namespace millrace::data
