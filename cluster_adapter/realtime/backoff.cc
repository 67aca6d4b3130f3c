#include "cluster_adapter/realtime/backoff.h"

#include <algorithm>

namespace millrace::cluster_adapter {

data::Micros Backoff::next_delay(std::optional<data::Micros> retry_after) {
  data::Micros delay = policy_.initial;
  for (int i = 0; i < failures_ && delay < policy_.max; ++i) delay *= 2;
  delay = std::min(delay, policy_.max);
  ++failures_;
  if (retry_after && *retry_after > delay) delay = *retry_after;
  return delay;
}

}  // namespace millrace::cluster_adapter
