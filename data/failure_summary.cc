#include "data/failure_summary.h"

#include <algorithm>
#include <map>

#include "data/text_excerpt.h"

namespace millrace::data {

namespace {

constexpr std::size_t kReasonLimit = 60;

}  // namespace

std::string failure_label(const Attempt& attempt) {
  const std::string exit = "exit " + std::to_string(attempt.exit_code);
  if (attempt.failure_reason.empty() || attempt.failure_reason == "exit") {
    if (attempt.exit_code != 0) return exit;
    return attempt.outcome == Outcome::kCancelled ? "cancelled" : "failed";
  }
  const std::string reason = shortened(attempt.failure_reason, kReasonLimit);
  return attempt.exit_code == 0 ? reason : reason + " (" + exit + ")";
}

FailureSummary summarize_failures(const std::vector<Attempt>& attempts) {
  FailureSummary summary;
  std::map<std::string, std::size_t> counts;
  for (const Attempt& a : attempts) {
    if (a.outcome != Outcome::kFailed && a.outcome != Outcome::kCancelled) continue;
    ++summary.attempts;
    ++counts[failure_label(a)];
    if (!summary.last || a.end >= summary.last->end) summary.last = a;
  }
  for (const auto& [label, count] : counts) summary.kinds.push_back(FailureKind{label, count});
  std::stable_sort(summary.kinds.begin(), summary.kinds.end(),
                   [](const FailureKind& x, const FailureKind& y) { return x.attempts > y.attempts; });
  return summary;
}

}  // namespace millrace::data
