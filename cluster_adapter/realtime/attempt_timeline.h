// The recent attempts of each worker of a real run, for the live page's timeline: the last few
// attempts each worker started in this session (running ones included), with their outcome and
// failure reason once they end. Bounded per worker, so a day-long run keeps a constant amount,
// and fed by the scheduler's attempt observer on the run loop's thread.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "data/records.h"
#include "data/time.h"

namespace millrace::cluster_adapter {

class AttemptTimeline {
 public:
  explicit AttemptTimeline(std::size_t per_worker = 12);

  // A started attempt (outcome running) is added to its worker's attempts; a finished one
  // replaces its running entry (or is added, when its start was not seen).
  void observe(const data::Attempt& attempt);
  // Removes `worker`'s attempt of `item` numbered `number` if it is still shown running (an
  // attempt whose end will never be reported, e.g. a range a watched worker let go).
  void drop_running(const std::string& worker, const std::string& item, int number);

  // [{"worker", "attempts": [{"item", "attempt", "start_us", "end_us" (null while running),
  //   "outcome", "exit_code", "reason"}, ...oldest first]}, ...by worker name]
  nlohmann::json to_json() const;

 private:
  std::size_t per_worker_;
  std::map<std::string, std::deque<data::Attempt>> workers_;
};

}  // namespace millrace::cluster_adapter
