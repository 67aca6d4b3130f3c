#include "data/profile_summary.h"

#include <algorithm>

#include "data/cost_model.h"
#include "data/error.h"

namespace millrace::data {

ProfileSummary summarise_profile(const CostProfile& profile) {
  if (profile.bins.empty()) throw Error("profile " + profile.name, "has no bins");
  const CostModel model = CostModel::from_profile(profile, 0);
  ProfileSummary s;
  s.span = model.span();
  s.bins = profile.bins.size();
  s.total_work = model.work(s.span.first, s.span.end());
  const std::int64_t width = std::max<std::int64_t>(1, s.span.count / 100);
  // Work in a window [x, x + width) is piecewise linear in x with breaks where either end
  // crosses a bin edge, so its maximum lies where one end sits on an edge.
  s.densest = {s.span.first, width};
  s.densest_work = model.work(s.span.first, s.span.first + width);
  for (const ProfileBin& bin : profile.bins) {
    for (const std::int64_t x : {bin.range.first, bin.range.end() - width}) {
      const std::int64_t from = std::clamp(x, s.span.first, s.span.end() - width);
      const double work = model.work(from, from + width);
      if (work > s.densest_work) {
        s.densest_work = work;
        s.densest = {from, width};
      }
    }
  }
  return s;
}

}  // namespace millrace::data
