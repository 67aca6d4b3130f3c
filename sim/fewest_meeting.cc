#include "sim/fewest_meeting.h"

#include <algorithm>

namespace millrace::sim {

std::optional<int> FewestMeetingSearch::next() const {
  if (lo_ < hi_) return lo_ + (hi_ - lo_) / 2;
  if (!walked_down_ && hi_ > floor_) return hi_ - 1;
  return std::nullopt;
}

void FewestMeetingSearch::tell(bool meets) {
  if (lo_ < hi_) {
    const int mid = lo_ + (hi_ - lo_) / 2;
    if (meets) {
      hi_ = mid;
    } else {
      lo_ = mid + 1;
    }
  } else if (meets) {
    --hi_;
  } else {
    walked_down_ = true;
  }
}

std::vector<int> FewestMeetingSearch::possible(int steps) const {
  std::vector<int> counts;
  std::vector<FewestMeetingSearch> level{*this};
  for (int step = 0; step < steps && !level.empty(); ++step) {
    std::vector<FewestMeetingSearch> following;
    for (const FewestMeetingSearch& search : level) {
      const std::optional<int> asked = search.next();
      if (!asked) continue;
      if (std::find(counts.begin(), counts.end(), *asked) == counts.end()) counts.push_back(*asked);
      for (bool meets : {true, false}) {
        following.push_back(search);
        following.back().tell(meets);
      }
    }
    level = std::move(following);
  }
  return counts;
}

int fewest_meeting(int lo, int hi, const std::function<bool(int)>& meets) {
  FewestMeetingSearch search(lo, hi);
  while (const std::optional<int> asked = search.next()) search.tell(meets(*asked));
  return search.answer();
}

}  // namespace millrace::sim
