// The status report operators watch during a run (the fields of parallel catch-up dashboards):
// items remaining and succeeded, failed jobs with the worker that failed them, jobs in progress
// as END/COUNT, and each worker's state. Serialised to JSON for the status endpoint and the CLI.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/time.h"

namespace millrace::scheduler {

struct FailedJob {
  std::string item;
  std::string range;          // FIRST-LAST (data::Range::text), or the item id for non-range work
  std::string worker;         // worker of the last attempt
  int attempts = 0;
  std::string reason;         // reason of the last attempt, or "dependency failed"
};

struct WorkerStatus {
  std::string name;
  bool busy = false;
  std::string range;          // what it runs now (FIRST-LAST), empty when idle
  data::Micros busy_time = 0; // time spent in finished attempts
  int succeeded = 0;
  int failed = 0;
};

struct StatusReport {
  data::Micros at = 0;
  std::string policy;
  int target = 0;                                // attempts the policy would run at once
  std::size_t num_items = 0;
  std::size_t num_remain = 0;                    // not yet succeeded nor given up
  std::size_t num_succeeded = 0;
  bool run_failed = false;
  std::vector<FailedJob> jobs_failed;
  std::vector<std::string> jobs_in_progress;     // END/COUNT of each attempt in flight
  std::vector<WorkerStatus> workers;             // by name
};

nlohmann::json to_json(const StatusReport& report);

}  // namespace millrace::scheduler
