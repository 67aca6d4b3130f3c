// The fewest-meeting search as steps: it asks what a plain binary search with a walk-down asks
// (a reference written here), and possible() lists exactly the counts it may ask next.
#include "sim/fewest_meeting.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace millrace::sim {
namespace {

// The reference: binary search on [lo, hi], then down while hi - 1 meets; the counts asked, in order.
std::vector<int> reference_asks(int lo, int hi, const std::vector<bool>& meets, int& answer) {
  std::vector<int> asked;
  const int floor = lo;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    asked.push_back(mid);
    if (meets[mid]) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  while (hi > floor) {
    asked.push_back(hi - 1);
    if (!meets[hi - 1]) break;
    --hi;
  }
  answer = hi;
  return asked;
}

// Meets from a seeded pattern: mostly monotone (from a threshold up) with a few flipped counts.
std::vector<bool> pattern(int hi, std::uint64_t seed) {
  std::uint64_t x = seed;
  auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  };
  const int threshold = 1 + static_cast<int>(next() % static_cast<std::uint64_t>(hi));
  std::vector<bool> meets(hi + 1);
  for (int n = 1; n <= hi; ++n) meets[n] = n >= threshold ? next() % 8 != 0 : next() % 8 == 0;
  meets[hi] = true;
  return meets;
}

TEST(FewestMeetingSearch, AsksWhatTheReferenceAsksInTheSameOrder) {
  for (int hi : {1, 2, 3, 7, 64, 100, 513}) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const std::vector<bool> meets = pattern(hi, seed);
      int expected_answer = 0;
      const std::vector<int> expected = reference_asks(1, hi, meets, expected_answer);
      std::vector<int> asked;
      const int answer = fewest_meeting(1, hi, [&](int n) {
        asked.push_back(n);
        return static_cast<bool>(meets[n]);
      });
      EXPECT_EQ(asked, expected) << "hi " << hi << " seed " << seed;
      EXPECT_EQ(answer, expected_answer) << "hi " << hi << " seed " << seed;
    }
  }
}

TEST(FewestMeetingSearch, ChecksTheAnswerAgainstTheCountBelow) {
  // Meets at 3, 5, 6 and 8: the binary search over [1, 8] asks 4 (no), 6 (yes), 5 (yes), then 4
  // again below the answer 5 (no: 3, which meets too, is not reached).
  const std::vector<bool> meets = {false, false, false, true, false, true, true, false, true};
  std::vector<int> asked;
  EXPECT_EQ(fewest_meeting(1, 8, [&](int n) {
              asked.push_back(n);
              return static_cast<bool>(meets[n]);
            }),
            5);
  EXPECT_EQ(asked, (std::vector<int>{4, 6, 5, 4}));
}

// Every count asked in the next `steps` questions, over every sequence of answers.
void collect(FewestMeetingSearch search, int steps, std::set<int>& out) {
  if (steps == 0) return;
  const std::optional<int> asked = search.next();
  if (!asked) return;
  out.insert(*asked);
  for (bool meets : {true, false}) {
    FewestMeetingSearch after = search;
    after.tell(meets);
    collect(after, steps - 1, out);
  }
}

TEST(FewestMeetingSearch, PossibleListsExactlyTheCountsTheNextStepsMayAskNextFirst) {
  for (int hi : {2, 9, 64, 512}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const std::vector<bool> meets = pattern(hi, seed);
      FewestMeetingSearch search(1, hi);
      while (const std::optional<int> asked = search.next()) {
        for (int steps = 1; steps <= 4; ++steps) {
          const std::vector<int> possible = search.possible(steps);
          std::set<int> expected;
          collect(search, steps, expected);
          EXPECT_EQ(std::set<int>(possible.begin(), possible.end()), expected);
          EXPECT_EQ(possible.size(), expected.size()) << "each count once";
          EXPECT_EQ(possible.front(), *asked);
        }
        search.tell(meets[*asked]);
      }
      EXPECT_TRUE(search.possible(3).empty());
    }
  }
}

}  // namespace
}  // namespace millrace::sim
