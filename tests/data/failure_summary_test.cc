// The failed attempts of a run grouped by kind (data/failure_summary.h): labels, counts in order
// and the last failure, against expectations written out by hand.
#include "data/failure_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/work_items.h"

namespace millrace::data {
namespace {

Attempt attempt(const std::string& item, Outcome outcome, int exit_code, const std::string& reason, Micros end) {
  Attempt a = test_support::attempt(item, 1, "w", outcome, 0, end, reason);
  a.exit_code = exit_code;
  return a;
}

TEST(FailureSummary, LabelsSayTheExitCodeTheReasonOrBoth) {
  EXPECT_EQ(failure_label(attempt("a", Outcome::kFailed, 3, "exit", 1)), "exit 3");
  EXPECT_EQ(failure_label(attempt("a", Outcome::kFailed, 3, "", 1)), "exit 3");
  EXPECT_EQ(failure_label(attempt("a", Outcome::kFailed, 0, "", 1)), "failed");
  EXPECT_EQ(failure_label(attempt("a", Outcome::kFailed, 0, "timeout", 1)), "timeout");
  EXPECT_EQ(failure_label(attempt("a", Outcome::kFailed, 137, "OOMKilled", 1)), "OOMKilled (exit 137)");
  EXPECT_EQ(failure_label(attempt("a", Outcome::kCancelled, 0, "", 1)), "cancelled");
  const std::string label = failure_label(attempt("a", Outcome::kFailed, 0, std::string(500, 'x'), 1));
  EXPECT_LT(label.size(), 80u) << label;
}

TEST(FailureSummary, CountsKindsMostFirstAndKeepsTheLastToEnd) {
  const std::vector<Attempt> attempts = {
      attempt("a", Outcome::kFailed, 3, "exit", 10),       attempt("b", Outcome::kSucceeded, 0, "", 50),
      attempt("c", Outcome::kFailed, 0, "timeout", 40),    attempt("d", Outcome::kFailed, 3, "exit", 20),
      attempt("e", Outcome::kCancelled, 0, "cancelled", 5), attempt("f", Outcome::kFailed, 3, "exit", 30),
      attempt("g", Outcome::kFailed, 0, "timeout", 35),    attempt("h", Outcome::kRunning, 0, "", 60),
  };
  const FailureSummary s = summarize_failures(attempts);
  EXPECT_EQ(s.attempts, 6u);
  EXPECT_EQ(s.kinds, (std::vector<FailureKind>{{"exit 3", 3}, {"timeout", 2}, {"cancelled", 1}}));
  ASSERT_TRUE(s.last.has_value());
  EXPECT_EQ(s.last->item_id, "c");
  EXPECT_EQ(summarize_failures({attempts[1]}).attempts, 0u);
  EXPECT_FALSE(summarize_failures({attempts[1]}).last.has_value());
}

}  // namespace
}  // namespace millrace::data
