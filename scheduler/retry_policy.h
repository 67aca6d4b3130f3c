// The retry policy: how many attempts an item gets, how long to wait before each retry
// (exponential backoff with a cap), and which failure reasons are worth retrying. Every attempt
// is recorded whatever the policy decides.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/time.h"

namespace millrace::scheduler {

struct RetryPolicy {
  int max_attempts = 3;                 // including the first
  data::Micros backoff = 0;             // wait before the first retry
  int backoff_factor = 2;               // each further retry waits this many times longer
  data::Micros max_backoff = 10 * 60 * data::kMicrosPerSecond;
  std::vector<std::string> retry_on;    // reasons that retry; empty: every reason but "cancelled"

  bool retries(std::string_view reason) const;
  // Wait before attempt number `attempt` (2 for the first retry).
  data::Micros delay_before(int attempt) const;
};

// What happens when an item exhausts its attempts; the other items carry on either way.
enum class OnExhausted { kFailRun, kReport };

}  // namespace millrace::scheduler
