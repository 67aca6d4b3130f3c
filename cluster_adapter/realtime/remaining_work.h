// The predicted work a real run has left and how uncertain it is: the sum of the cost model's
// predictions of the items not settled yet (the ETA of the progress line and the live page), and
// the spread of that sum under the model's duration noise (data/duration_noise.h), so the ETA
// comes with the band the model's own out-of-fold errors give it.
//
// Each item's factor (observed / predicted) is drawn independently from the noise, as the
// replicas of `compare` and `plan` draw it; the mean and variance of each item's duration are
// integrated once over the factor's quantile function, and the remaining sum's are kept as
// running totals, so settling an item costs O(1) whatever the plan's size. The band is the
// normal approximation of the sum (its p10 and p90): the sum of many independent ranges is close
// to normal, and near the end of a run, where few are left, the band is narrow in absolute terms.
//
// The ETA learns from the run itself: each item that succeeds with a prediction adds its actual
// and predicted durations, and the run's ratio (summed actual over what the model expected of
// those items) scales the remaining work, blended with the model by weight n / (n + 10) after n
// such items, its own uncertainty widening the band. When the ratio is beyond what the model's
// noise gives that many items (99%), the band says so (e.g. "ranges run 0.10x the model").
// Where the model learnt how whole runs differ (data/run_spread.h), the run's level starts at the
// recorded runs' median with their spread, and is updated by the ratio observed weighed by the
// precision of each; the ratio is outside the model when beyond both spreads together.
//
// Spread over the slots, the work cannot finish sooner than its longest item, nor use more slots
// than items are left: near the end of a run the last ranges are not divided by idle slots. (An
// item in flight counts whole: its time spent is not known here, so the last minutes of a run
// read a little long rather than short.)
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/duration_noise.h"
#include "data/records.h"
#include "data/time.h"

namespace millrace::cluster_adapter {

// The time the remaining work takes on `slots` attempts at once.
struct EtaBand {
  data::Micros expected = 0;  // predictions (factor 1) times the learnt run ratio, spread over the slots
  data::Micros p10 = 0;       // 10% of the outcomes end sooner
  data::Micros p90 = 0;       // 90% of them end sooner
  std::size_t observed = 0;   // items that succeeded with a prediction
  double run_ratio = 1;       // their actual over what the model expected of them (1: none yet)
  bool outside_model = false; // the ratio is beyond what the model's noise gives that many items

  // "" while the run is inside the model; else "ranges run 0.10x the model".
  std::string note() const;
};

class RemainingWork {
 public:
  RemainingWork(const std::vector<data::WorkItem>& items, const data::DurationNoise& noise);

  // The item is done with (succeeded or given up); settling it again or an unknown id does nothing.
  void settle(const std::string& item_id);
  // The item succeeded, its work taking `actual`: settled, and learnt from when it was predicted.
  void observe(const std::string& item_id, data::Micros actual);
  // Sum of the predictions of the items not settled (0 when nothing was predicted).
  data::Micros predicted() const { return predicted_; }
  // The band of the remaining work spread over `slots`; none when nothing is predicted and
  // something is left.
  std::optional<EtaBand> eta(int slots) const;

 private:
  struct Entry {
    data::Micros predicted = 0;
    double mean = 0;      // of the item's duration under the noise, microseconds
    double variance = 0;  // microseconds squared
    bool settled = false;
  };
  std::unordered_map<std::string, Entry> items_;
  std::size_t left_ = 0;
  data::Micros predicted_ = 0;
  std::multiset<data::Micros> left_predictions_;  // of the items not settled, for the longest
  double mean_ = 0;
  double variance_ = 0;
  // Learnt from the items observed: their count, actual durations, and the model's expectation
  // and variance of them.
  std::size_t observed_ = 0;
  double observed_actual_ = 0;
  double observed_mean_ = 0;
  double observed_variance_ = 0;
  // The run's level as the model's recorded runs give it (data/run_spread.h): median and relative
  // sd; sd 0 when the model did not learn it.
  double run_median_ = 1;
  double run_log_sd_ = 0;
};

}  // namespace millrace::cluster_adapter
