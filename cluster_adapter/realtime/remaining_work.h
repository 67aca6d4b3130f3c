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
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/duration_noise.h"
#include "data/records.h"
#include "data/time.h"

namespace millrace::cluster_adapter {

// The time the remaining work takes on `slots` attempts at once.
struct EtaBand {
  data::Micros expected = 0;  // predictions alone (factor 1), spread over the slots
  data::Micros p10 = 0;       // 10% of the noise's outcomes end sooner
  data::Micros p90 = 0;       // 90% of them end sooner
};

class RemainingWork {
 public:
  RemainingWork(const std::vector<data::WorkItem>& items, const data::DurationNoise& noise);

  // The item is done with (succeeded or given up); settling it again or an unknown id does nothing.
  void settle(const std::string& item_id);
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
  double mean_ = 0;
  double variance_ = 0;
};

}  // namespace millrace::cluster_adapter
