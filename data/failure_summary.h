// What went wrong in a run, in a line: its failed and cancelled attempts grouped by kind, most
// frequent first, and the one that ended last. A kind is what a person acts on: a process's exit
// code ("exit 3"), a reason with the exit code it came with ("OOMKilled (exit 137)"), or a reason
// alone ("timeout", "cancelled"). `millrace show` prints it (cli/run_summary_text.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::data {

struct FailureKind {
  std::string label;
  std::size_t attempts = 0;
  friend bool operator==(const FailureKind&, const FailureKind&) = default;
};

struct FailureSummary {
  std::size_t attempts = 0;        // failed or cancelled
  std::vector<FailureKind> kinds;  // most attempts first; ties by label
  std::optional<Attempt> last;     // the failed or cancelled attempt that ended last (ties: the later listed)
};

// The kind of a failed or cancelled attempt (see above); a reason is cut to an excerpt.
std::string failure_label(const Attempt& attempt);

FailureSummary summarize_failures(const std::vector<Attempt>& attempts);

}  // namespace millrace::data
