#include "partitioners/cuts.h"

#include <algorithm>

#include "data/error.h"

namespace millrace::partitioners {

std::int64_t align_down(std::int64_t x, std::int64_t align) {
  const std::int64_t r = x % align;
  return r < 0 ? x - r - align : x - r;
}

std::int64_t align_up(std::int64_t x, std::int64_t align) { return -align_down(-x, align); }

std::vector<std::int64_t> cuts_by_count(const data::Range& segment, std::int64_t n, std::int64_t align,
                                        const std::string& who) {
  std::vector<std::int64_t> cuts;
  std::int64_t previous = segment.first;
  for (std::int64_t k = 1; k < n; ++k) {
    const std::int64_t exact = segment.first + (segment.count / n) * k + (segment.count % n) * k / n;
    const std::int64_t down = align_down(exact, align);
    const std::int64_t cut = exact - down <= align_up(exact, align) - exact ? down : align_up(exact, align);
    if (cut <= previous || cut >= segment.end()) {
      throw data::Error(who, "cannot cut " + std::to_string(segment.count) + " units from " +
                                 std::to_string(segment.first) + " into " + std::to_string(n) +
                                 " non-empty ranges aligned to " + std::to_string(align));
    }
    cuts.push_back(cut);
    previous = cut;
  }
  return cuts;
}

std::vector<std::int64_t> cuts_by_length_from_top(const data::Range& segment, std::int64_t length, std::int64_t align) {
  std::vector<std::int64_t> cuts;
  std::int64_t cut = align_down(segment.end(), align);
  if (cut == segment.end()) cut -= length;
  for (; cut > segment.first; cut -= length) cuts.push_back(cut);
  std::reverse(cuts.begin(), cuts.end());
  return cuts;
}

Partition partition_from_cuts(const data::Range& span, const std::vector<std::int64_t>& cuts, std::int64_t overlap) {
  Partition out{{}, overlap};
  std::int64_t first = span.first;
  for (std::int64_t cut : cuts) {
    out.ranges.push_back({first, cut - first});
    first = cut;
  }
  out.ranges.push_back({first, span.end() - first});
  return out;
}

}  // namespace millrace::partitioners
