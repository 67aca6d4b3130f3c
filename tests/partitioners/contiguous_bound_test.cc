// The contiguous lower bound against brute force on a tiny model written here unit by unit:
// every partition of the span into contiguous ranges, every assignment of its ranges to the
// workers. The bound's two parts must equal their definitions computed by enumeration, and the
// bound must never exceed the best makespan any partition reaches.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/error.h"
#include "partitioners/contiguous_bound.h"

namespace millrace::partitioners {
namespace {

using ::testing::HasSubstr;

// A cost model given per unit: startup[u - first] and work[u - first] for units first, first+1, ...
struct UnitModel {
  std::int64_t first = 0;
  std::vector<double> startup;
  std::vector<double> work;

  double s(std::int64_t u) const { return startup[static_cast<std::size_t>(u - first)]; }
  double w(std::int64_t u) const { return work[static_cast<std::size_t>(u - first)]; }
  // A work range [from, to): s(from) + the work of its units.
  double cost(std::int64_t from, std::int64_t to) const {
    double c = s(from);
    for (std::int64_t u = from; u < to; ++u) c += w(u);
    return c;
  }
  // The same model as CostModel bins (one bin per run of equal coefficients).
  data::CostModel model() const {
    std::vector<data::CostBin> bins;
    for (std::size_t i = 0; i < work.size(); ++i) {
      if (!bins.empty() && bins.back().startup_micros == startup[i] && bins.back().micros_per_unit == work[i]) {
        ++bins.back().range.count;
      } else {
        bins.push_back({{first + static_cast<std::int64_t>(i), 1}, startup[i], work[i]});
      }
    }
    return data::CostModel(bins);
  }
};

// Least makespan of these range costs on `workers` workers, over every assignment.
double best_assignment(const std::vector<double>& costs, int workers) {
  std::vector<int> owner(costs.size(), 0);
  double best = std::numeric_limits<double>::infinity();
  for (;;) {
    std::vector<double> load(static_cast<std::size_t>(workers), 0.0);
    for (std::size_t i = 0; i < costs.size(); ++i) load[static_cast<std::size_t>(owner[i])] += costs[i];
    best = std::min(best, *std::max_element(load.begin(), load.end()));
    std::size_t i = 0;
    while (i < owner.size() && ++owner[i] == workers) owner[i++] = 0;
    if (i == owner.size()) return best;
  }
}

// Least makespan over every contiguous partition of [first, end) (each range replaying
// `overlap` units before its first) and every assignment.
double brute_force_optimum(const UnitModel& m, std::int64_t first, std::int64_t end, std::int64_t overlap,
                           int workers) {
  const std::int64_t cut_points = end - first - 1;
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t cuts = 0; cuts < (1u << cut_points); ++cuts) {
    std::vector<double> costs;
    std::int64_t from = first;
    for (std::int64_t c = 0; c <= cut_points; ++c) {
      const bool cut_after = c == cut_points || ((cuts >> c) & 1u) != 0;
      if (!cut_after) continue;
      const std::int64_t to = first + c + 1;
      costs.push_back(m.cost(from - overlap, to));
      from = to;
    }
    best = std::min(best, best_assignment(costs, workers));
  }
  return best;
}

// max over units u of the cheapest range containing u, by enumerating every start.
double brute_force_bottleneck(const UnitModel& m, std::int64_t first, std::int64_t end, std::int64_t overlap) {
  double worst = 0;
  for (std::int64_t u = first; u < end; ++u) {
    double cheapest = std::numeric_limits<double>::infinity();
    for (std::int64_t f = first - overlap; f <= u; ++f) cheapest = std::min(cheapest, m.cost(f, u + 1));
    worst = std::max(worst, cheapest);
  }
  return worst;
}

const UnitModel kBumpy{-2,
                       {4, 4, 5, 5, 5, 1, 1, 9, 9, 2, 2},
                       {2, 2, 3, 3, 3, 10, 10, 1, 1, 6, 0}};

TEST(ContiguousBound, PartsEqualTheirDefinitionsByEnumeration) {
  const data::CostModel model = kBumpy.model();
  for (std::int64_t overlap : {0, 1, 2}) {
    for (int workers : {1, 2, 3, 5}) {
      const ContiguousBound b = contiguous_bound(model, {0, 9}, overlap, workers);
      double work = 0;
      double least_startup = std::numeric_limits<double>::infinity();
      for (std::int64_t u = 0; u < 9; ++u) work += kBumpy.w(u);
      for (std::int64_t f = -overlap; f < 9; ++f) least_startup = std::min(least_startup, kBumpy.s(f));
      SCOPED_TRACE("overlap " + std::to_string(overlap) + ", workers " + std::to_string(workers));
      EXPECT_DOUBLE_EQ(b.bottleneck, brute_force_bottleneck(kBumpy, 0, 9, overlap));
      EXPECT_DOUBLE_EQ(b.spread, work / workers + least_startup);
    }
  }
}

TEST(ContiguousBound, NeverExceedsTheBestMakespanOfAnyContiguousPartition) {
  const data::CostModel model = kBumpy.model();
  for (std::int64_t overlap : {0, 1, 2}) {
    for (int workers : {1, 2, 3}) {
      for (const data::Range span : {data::Range{0, 9}, data::Range{2, 6}, data::Range{4, 1}}) {
        const double optimum = brute_force_optimum(kBumpy, span.first, span.end(), overlap, workers);
        SCOPED_TRACE("span " + std::to_string(span.first) + "+" + std::to_string(span.count) + ", overlap " +
                     std::to_string(overlap) + ", workers " + std::to_string(workers));
        EXPECT_LE(static_cast<double>(contiguous_bound(model, span, overlap, workers).bound), optimum);
      }
    }
  }
}

TEST(ContiguousBound, IsReachedWhereAnEvenSplitExists) {
  // No start-up cost and even work: eight units on four workers, two units each.
  const UnitModel flat{0, std::vector<double>(8, 0.0), std::vector<double>(8, 5.0)};
  EXPECT_EQ(contiguous_bound(flat.model(), {0, 8}, 0, 4).bound, 10);
  EXPECT_DOUBLE_EQ(brute_force_optimum(flat, 0, 8, 0, 4), 10.0);
  // One unit costlier than the even share: the bottleneck decides.
  UnitModel peak = flat;
  peak.work[3] = 30;
  EXPECT_EQ(contiguous_bound(peak.model(), {0, 8}, 0, 4).bound, 30);
  EXPECT_DOUBLE_EQ(brute_force_optimum(peak, 0, 8, 0, 4), 30.0);
}

TEST(ContiguousBound, RefusesSpansOutsideTheModelAndBadParameters) {
  const data::CostModel model = kBumpy.model();
  EXPECT_THAT([&] { contiguous_bound(model, {0, 9}, 3, 2); },
              testing::ThrowsMessage<data::Error>(HasSubstr("model's span -2:8")));
  EXPECT_THROW(contiguous_bound(model, {0, 10}, 0, 2), data::Error);
  EXPECT_THROW(contiguous_bound(model, {0, 9}, 0, 0), data::Error);
  EXPECT_THROW(contiguous_bound(model, {0, 9}, -1, 2), data::Error);
}

}  // namespace
}  // namespace millrace::partitioners
