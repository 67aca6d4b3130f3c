// The search for the fewest count meeting a target (workers, nodes, a concurrency cap), given
// that the largest meets it: binary search over [lo, hi] on "meets", which assumes meeting is
// monotone in the count, then, since that is not guaranteed (list-scheduling anomalies, a
// partition chosen per count, placement on nodes), the answer N checked against N - 1, walking
// down while N - 1 meets too.
//
// Written as steps (ask next(), tell() what it is) so that a caller evaluating counts on several
// threads can see ahead which counts the search may ask (possible()) and evaluate them while it
// waits, without changing which counts the search asks or in what order.
#pragma once

#include <functional>
#include <optional>
#include <vector>

namespace millrace::sim {

// How far a search evaluated side by side (on threads, or fanned out in batches) looks ahead:
// its next question and the counts of the two after it, whatever the answers (at most 1 + 2 + 4).
inline constexpr int kStepsAhead = 3;

class FewestMeetingSearch {
 public:
  FewestMeetingSearch(int lo, int hi) : floor_(lo), lo_(lo), hi_(hi) {}

  // The count whose answer the search needs next; none once it has its answer.
  std::optional<int> next() const;
  // Whether next() meets the target.
  void tell(bool meets);
  // The fewest count meeting the target, once next() is none.
  int answer() const { return hi_; }
  // Every count the search may ask in its next `steps` questions, whatever the answers: next()
  // first, then breadth first, each once.
  std::vector<int> possible(int steps) const;

 private:
  int floor_;
  int lo_;
  int hi_;
  bool walked_down_ = false;  // N - 1 did not meet: the answer is N
};

// The fewest n in [lo, hi] with meets(n), given that meets(hi), asking as the steps above.
int fewest_meeting(int lo, int hi, const std::function<bool(int)>& meets);

}  // namespace millrace::sim
