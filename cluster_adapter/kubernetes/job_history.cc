#include "cluster_adapter/kubernetes/job_history.h"

#include <algorithm>
#include <tuple>

namespace millrace::cluster_adapter {

std::vector<std::string> jobs_beyond_history(std::vector<FinishedJob> finished, int keep_succeeded,
                                             int keep_failed) {
  std::sort(finished.begin(), finished.end(), [](const FinishedJob& a, const FinishedJob& b) {
    return std::tie(a.finished, a.seen, a.name) < std::tie(b.finished, b.seen, b.name);
  });
  auto excess = [&](bool succeeded, int keep) {
    auto total = std::count_if(finished.begin(), finished.end(),
                               [&](const FinishedJob& j) { return j.succeeded == succeeded; });
    return std::max<long>(0, total - std::max(0, keep));
  };
  long drop_succeeded = excess(true, keep_succeeded);
  long drop_failed = excess(false, keep_failed);
  std::vector<std::string> out;
  for (const auto& job : finished) {
    long& left = job.succeeded ? drop_succeeded : drop_failed;
    if (left > 0) {
      --left;
      out.push_back(job.name);
    }
  }
  return out;
}

}  // namespace millrace::cluster_adapter
