// Behaviour of each generator on hand-computed cases, and the errors for bad parameters.
#include <algorithm>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/error.h"
#include "partitioners/cost_cuts.h"
#include "partitioners/registry.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> end_counts(const Partition& p) {
  std::vector<std::string> out;
  for (const data::Range& r : p.work_ranges()) out.push_back(r.end_count());
  std::reverse(out.begin(), out.end());  // tip first, as deployments list them
  return out;
}

TEST(Uniform, RangeLengthCutsFromTheTipDownLikeTheDeployedGenerator) {
  PartitionParams params;
  params.span = {0, 54'326'464};  // ledgers 0 .. 54,326,463
  params.range_length = 16'000;
  params.overlap = 320;
  params.align = 64;
  const std::vector<std::string> lines = end_counts(make_partition("uniform", params));
  ASSERT_EQ(lines.size(), 3396u);
  EXPECT_EQ(lines[0], "54326463/16320");
  EXPECT_EQ(lines[1], "54310463/16320");
  EXPECT_EQ(lines[3394], "22463/16320");
  EXPECT_EQ(lines[3395], "6463/6784");  // the lowest range keeps the remainder (6,464) + overlap
}

TEST(Uniform, RangeCountGivesEqualCountsOnAlignedCuts) {
  PartitionParams params;
  params.span = {0, 1000};
  params.ranges = 3;
  params.align = 10;
  const Partition p = make_partition("uniform", params);
  ASSERT_EQ(p.ranges.size(), 3u);
  EXPECT_EQ(p.ranges[0], (data::Range{0, 330}));
  EXPECT_EQ(p.ranges[1], (data::Range{330, 340}));
  EXPECT_EQ(p.ranges[2], (data::Range{670, 330}));
}

TEST(Logarithmic, HalvesTheRangeLengthPerSegmentDownToTheFloor) {
  PartitionParams params;
  params.span = {0, 1600};
  params.workers = 4;
  params.floor = 50;
  const Partition p = make_partition("logarithmic", params);
  std::vector<std::int64_t> counts;
  for (const data::Range& r : p.ranges) counts.push_back(r.count);
  // First half in 4 ranges of 200, then 4 of 100, then (chunk 50 = floor) the rest in 50s.
  EXPECT_EQ(counts, (std::vector<std::int64_t>{200, 200, 200, 200, 100, 100, 100, 100, 50, 50, 50, 50, 50, 50, 50, 50}));
}

// Unit densities 2,2,2,2,2,8,1,1,1,1 (prefix 0,2,4,6,8,10,18,19,20,21,22), no start-up.
data::CostModel small_profile(double startup) {
  const double d[] = {2, 2, 2, 2, 2, 8, 1, 1, 1, 1};
  std::vector<data::CostBin> bins;
  for (int i = 0; i < 10; ++i) bins.push_back({{i, 1}, startup, d[i]});
  return data::CostModel(bins);
}

double max_cost(const data::CostModel& m, const Partition& p) {
  const std::vector<double> c = predicted_costs(m, p.ranges, p.overlap);
  return *std::max_element(c.begin(), c.end());
}

TEST(Optimal, FindsTheHandComputedMinMaxOptimum) {
  // 3 ranges: the first must stay <= 9 to beat 10, so it ends by unit 4; then the middle range
  // holds unit 5 (8) and either ends there (leaving 12) or grows past 9: the optimum is 10.
  const data::CostModel model = small_profile(0);
  PartitionParams params;
  params.span = {0, 10};
  params.ranges = 3;
  params.model = &model;
  EXPECT_DOUBLE_EQ(max_cost(model, make_partition("optimal", params)), 10);
}

TEST(Optimal, FindsTheHandComputedOptimumOnAlignedCuts) {
  // Cuts on multiples of 3: (3,6) -> 6+s, 12+s, 4+s; (3,9) -> 6, 14, 1; (6,9) -> 18, 3, 1.
  const data::CostModel model = small_profile(1);
  PartitionParams params;
  params.span = {0, 10};
  params.ranges = 3;
  params.align = 3;
  params.model = &model;
  const Partition p = make_partition("optimal", params);
  EXPECT_EQ(p.ranges, (std::vector<data::Range>{{0, 3}, {3, 3}, {6, 4}}));
  EXPECT_DOUBLE_EQ(max_cost(model, p), 13);
}

TEST(Optimal, MatchesBruteForceOnRandomSmallProfiles) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int units = 4 + static_cast<int>(rng() % 9);
    std::vector<data::CostBin> bins;
    for (int i = 0; i < units; ++i) bins.push_back({{i, 1}, 3, static_cast<double>(rng() % 20)});
    const data::CostModel model(bins);
    const std::int64_t n = 1 + static_cast<std::int64_t>(rng() % 3);
    // Brute force over all cut sets of size n - 1.
    double best = 1e300;
    std::vector<int> cuts;
    const auto search = [&](auto&& self, int from, int left) -> void {
      if (left == 0) {
        double worst = 0;
        int x = 0;
        for (int c : cuts) {
          worst = std::max(worst, model.cost({x, c - x}));
          x = c;
        }
        best = std::min(best, std::max(worst, model.cost({x, units - x})));
        return;
      }
      for (int c = from; c < units; ++c) {
        cuts.push_back(c);
        self(self, c + 1, left - 1);
        cuts.pop_back();
      }
    };
    for (std::int64_t k = 1; k <= n; ++k) search(search, 1, static_cast<int>(k - 1));
    PartitionParams params;
    params.span = {0, units};
    params.ranges = n;
    params.model = &model;
    EXPECT_NEAR(max_cost(model, make_partition("optimal", params)), best, 1e-9) << "trial " << trial;
  }
}

TEST(Optimal, ChoosesTheRangeCountBySchedulingOnTheWorkers) {
  const data::CostModel model = small_profile(0.5);
  PartitionParams params;
  params.span = {0, 10};
  params.workers = 2;
  params.model = &model;
  const Partition p = make_partition("optimal", params);
  EXPECT_GE(p.ranges.size(), 2u);
}

TEST(CostBalanced, RangesCostTheSameUpToOneAlignedStepOfWork) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<data::CostBin> bins;
    double densest = 0;
    for (int i = 0; i < 16; ++i) {
      const double d = 1 + static_cast<double>(rng() % 100);
      densest = std::max(densest, d);
      bins.push_back({{i * 10'000, 10'000}, 2'000, d});
    }
    const data::CostModel model(bins);
    PartitionParams params;
    params.span = {0, 160'000};
    params.ranges = 20 + static_cast<std::int64_t>(rng() % 200);
    params.align = 64;
    params.overlap = 320;
    params.model = &model;
    const Partition p = make_partition("cost-balanced", params);
    const std::vector<double> c = predicted_costs(model, p.ranges, p.overlap);
    const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
    // Basis resolution: each cut is on the aligned point nearest its target, so each range is
    // off by at most one aligned step of the densest bin at each end.
    EXPECT_LE(*hi - *lo, 2 * densest * 64) << "trial " << trial << " ranges " << params.ranges;
  }
}

TEST(PartitionerErrors, UnknownNameListsTheKnownOnes) {
  try {
    make_partition("fastest", PartitionParams{});
    FAIL();
  } catch (const data::Error& e) {
    EXPECT_EQ(e.input(), "--partitioner");
    EXPECT_EQ(e.problem(), "unknown partitioner 'fastest' (known: uniform, logarithmic, cost-balanced, optimal)");
  }
}

// Every registered generator runs from a span, a model and a worker count alone (what compare
// and plan give it), its own defaults filling the rest.
TEST(PartitionerDefaults, EveryGeneratorRunsFromSpanAndWorkersAlone) {
  const data::CostModel model = small_profile(0);
  for (const std::string& name : partitioner_names()) {
    PartitionParams params;
    params.span = {0, 10};
    params.model = &model;
    params.workers = 3;
    SCOPED_TRACE(name);
    EXPECT_THROW(make_partition(name, {}), data::Error);  // nothing given: refused, not defaulted
    const Partition partition = make_partition(name, with_defaults(name, params));
    EXPECT_FALSE(partition.ranges.empty());
  }
}

TEST(PartitionerDefaults, EachGeneratorFillsOnlyWhatIsLeftOpen) {
  PartitionParams params;
  params.span = {0, 64'000};
  params.workers = 5;
  EXPECT_EQ(with_defaults("uniform", params).ranges, 5);
  EXPECT_EQ(with_defaults("cost-balanced", params).ranges, 5);
  EXPECT_EQ(with_defaults("logarithmic", params).floor, 64'000 / (16 * 5));
  EXPECT_EQ(with_defaults("logarithmic", params).ranges, 0);
  const PartitionParams optimal = with_defaults("optimal", params);
  EXPECT_EQ(optimal.ranges, 0);  // optimal chooses its count itself
  EXPECT_EQ(optimal.floor, 0);

  PartitionParams given = params;
  given.ranges = 7;
  given.floor = 9;
  EXPECT_EQ(with_defaults("uniform", given).ranges, 7);
  EXPECT_EQ(with_defaults("cost-balanced", given).ranges, 7);
  EXPECT_EQ(with_defaults("logarithmic", given).floor, 9);
  PartitionParams by_length = params;
  by_length.range_length = 1000;
  EXPECT_EQ(with_defaults("uniform", by_length).ranges, 0);  // a length is a count already
  PartitionParams tiny = params;
  tiny.span = {0, 10};
  EXPECT_EQ(with_defaults("logarithmic", tiny).floor, 1);
  EXPECT_THROW(with_defaults("fastest", params), data::Error);
}

TEST(PartitionerErrors, BadParametersNameThePartitionerAndTheProblem) {
  const data::CostModel model = small_profile(0);
  PartitionParams params;
  params.span = {0, 10};
  params.model = &model;
  const auto problem = [](const std::string& name, const PartitionParams& p) {
    try {
      make_partition(name, p);
    } catch (const data::Error& e) {
      EXPECT_EQ(e.input(), name);
      return e.problem();
    }
    return std::string("no error");
  };
  PartitionParams too_many = params;
  too_many.ranges = 11;
  EXPECT_THAT(problem("uniform", too_many), HasSubstr("smaller than the range count"));
  EXPECT_THAT(problem("optimal", params), HasSubstr("worker count"));        // zero workers
  EXPECT_THAT(problem("logarithmic", params), HasSubstr("parallelism"));    // zero workers
  PartitionParams no_model = params;
  no_model.model = nullptr;
  no_model.ranges = 2;
  EXPECT_THAT(problem("cost-balanced", no_model), HasSubstr("needs a cost model"));
  PartitionParams bad_align = params;
  bad_align.ranges = 2;
  bad_align.align = 0;
  EXPECT_THAT(problem("uniform", bad_align), HasSubstr("alignment"));
  PartitionParams unaligned_length = params;
  unaligned_length.range_length = 5;
  unaligned_length.align = 2;
  EXPECT_THAT(problem("uniform", unaligned_length), HasSubstr("not a multiple of the alignment"));
}

TEST(Validator, RejectsGapsOverlapsEmptyRangesMisalignmentAndShortCover) {
  PartitionParams params;
  params.span = {0, 100};
  params.align = 10;
  const auto problem = [&](std::vector<data::Range> ranges) {
    try {
      validate({ranges, 0}, params, "test");
    } catch (const data::Error& e) {
      return e.problem();
    }
    return std::string("valid");
  };
  EXPECT_EQ(problem({{0, 50}, {50, 50}}), "valid");
  EXPECT_THAT(problem({{0, 40}, {50, 50}}), HasSubstr("range 1 (99/50) starts at 50, expected 40"));
  EXPECT_THAT(problem({{0, 60}, {50, 50}}), HasSubstr("sorted and contiguous"));
  EXPECT_THAT(problem({{0, 50}, {50, 0}, {50, 50}}), HasSubstr("is empty"));
  EXPECT_THAT(problem({{0, 55}, {55, 45}}), HasSubstr("not aligned to 10"));
  EXPECT_THAT(problem({{0, 50}, {50, 40}}), HasSubstr("span ends at 100"));
  EXPECT_THAT(problem({}), HasSubstr("no ranges"));
}

}  // namespace
}  // namespace millrace::partitioners
