// How far a run's predictions were from what happened: each succeeded item's duration against
// the duration predicted for it (actual / predicted, their spread, the share inside the item's
// own p10-p90 band from the cost model's noise, the worst misses), and the makespan against the
// band a comparison predicted for it. Only items with a prediction count; an item's duration is
// that of its succeeded attempt (its last, if several are recorded succeeded).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "data/duration_noise.h"
#include "data/records.h"

namespace millrace::data {

struct MakespanBand {
  Micros p10 = 0;
  Micros p50 = 0;
  Micros p90 = 0;
};

struct ItemMiss {
  std::string item_id;
  Micros predicted = 0;
  Micros actual = 0;
  double ratio = 1;  // actual / predicted
};

struct PredictionCheck {
  std::size_t items = 0;           // succeeded items with a prediction
  double ratio_p10 = 1;            // actual / predicted over them: nearest-rank quantiles
  double ratio_p50 = 1;
  double ratio_p90 = 1;
  double total_ratio = 1;          // their summed durations, actual over predicted
  std::optional<std::size_t> inside_band;  // items inside their own p10-p90 band; none without noise
  bool relative_to_run = false;    // the bands were set against the run's own level (total_ratio)
  std::vector<ItemMiss> worst;     // the largest misses either way (by |log ratio|), worst first
  std::optional<MakespanBand> makespan_band;
  Micros makespan = 0;             // actual: first start to last end

  // (actual - predicted p50) / predicted p50; 0 without a band.
  double makespan_error() const;
  bool makespan_inside() const;
};

// `noise`: the band of each item is its prediction times the noise's factor at 0.1 and 0.9 for
// its range (null or empty: no band), times the run's own total ratio where the noise holds the
// run-to-run spread (data/run_spread.h): its segments are then each range's noise within a run.
// `worst_count` misses at most.
PredictionCheck check_predictions(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts,
                                  const DurationNoise* noise, std::optional<MakespanBand> makespan_band,
                                  Micros makespan, std::size_t worst_count = 5);

}  // namespace millrace::data
