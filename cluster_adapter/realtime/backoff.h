// Exponential backoff for calls to a cluster's API: the delay doubles from `initial` up to
// `max` after each retryable failure, a server's Retry-After wins when it asks for longer, and
// a success resets it. No jitter, so runs stay reproducible.
#pragma once

#include <optional>

#include "data/time.h"

namespace millrace::cluster_adapter {

struct BackoffPolicy {
  data::Micros initial = 100 * data::kMicrosPerMilli;
  data::Micros max = 10 * data::kMicrosPerSecond;
  int max_attempts = 0;  // tries before giving up; 0: never give up
};

class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy) : policy_(policy) {}

  // The delay before the next try, after a failure (with the server's Retry-After, if any).
  data::Micros next_delay(std::optional<data::Micros> retry_after = std::nullopt);
  // True when the failures so far used up max_attempts.
  bool exhausted() const { return policy_.max_attempts > 0 && failures_ >= policy_.max_attempts; }
  int failures() const { return failures_; }
  void reset() { failures_ = 0; }

 private:
  BackoffPolicy policy_;
  int failures_ = 0;
};

}  // namespace millrace::cluster_adapter
