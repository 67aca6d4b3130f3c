#include "scheduler/retry_policy.h"

#include <algorithm>

namespace millrace::scheduler {

bool RetryPolicy::retries(std::string_view reason) const {
  if (retry_on.empty()) return reason != "cancelled";
  return std::find(retry_on.begin(), retry_on.end(), reason) != retry_on.end();
}

data::Micros RetryPolicy::delay_before(int attempt) const {
  data::Micros delay = backoff;
  for (int n = 2; n < attempt && delay < max_backoff; ++n) delay *= backoff_factor;
  return std::min(delay, max_backoff);
}

}  // namespace millrace::scheduler
