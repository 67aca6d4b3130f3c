// Which finished Jobs to delete so a run keeps at most N succeeded and M failed Jobs in the
// cluster (like a CronJob's history limits), oldest first. Finishing times come from the API
// with one-second resolution, so ties are broken by the order in which the run saw the Jobs
// finish, then by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace millrace::cluster_adapter {

struct FinishedJob {
  std::string name;
  bool succeeded = true;
  std::int64_t finished = 0;  // seconds since the Unix epoch (completionTime or Failed condition)
  std::uint64_t seen = 0;     // order in which the run saw it finish
};

// Names of the Jobs beyond the limits, oldest first.
std::vector<std::string> jobs_beyond_history(std::vector<FinishedJob> finished, int keep_succeeded,
                                             int keep_failed);

}  // namespace millrace::cluster_adapter
