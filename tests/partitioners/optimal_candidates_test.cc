// `optimal` built as candidates (Partitioner::candidates, one per range count) on several threads,
// as a comparison builds it: the partition chosen is the one the sequential path chooses and the
// one a reference written here chooses (the count choice as documented: n = W * m up to the
// aligned capacity, each scheduled by LPT, the smallest makespan, ties to fewer ranges).
#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/error.h"
#include "partitioners/cost_cuts.h"
#include "partitioners/registry.h"

namespace millrace::partitioners {
namespace {

using ::testing::HasSubstr;

// LPT by hand: longest first, each to the first least-loaded worker.
double reference_lpt(std::vector<double> costs, int workers) {
  std::sort(costs.begin(), costs.end(), std::greater<>());
  std::vector<double> loads(static_cast<std::size_t>(workers), 0);
  for (double c : costs) *std::min_element(loads.begin(), loads.end()) += c;
  return *std::max_element(loads.begin(), loads.end());
}

// The count choice written out; each count's min-max partition is min_max_ranges (checked against
// brute force in generators_test.cc).
std::vector<data::Range> reference_optimal(const data::CostModel& model, const PartitionParams& p) {
  const double multipliers[] = {1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16};
  const std::int64_t capacity = std::max<std::int64_t>(1, p.span.count / p.align);
  std::vector<data::Range> best;
  double best_makespan = 0;
  std::int64_t previous = 0;
  for (double m : multipliers) {
    const std::int64_t n = std::min(capacity, static_cast<std::int64_t>(std::llround(p.workers * m)));
    if (n == previous) continue;
    previous = n;
    std::vector<data::Range> ranges = min_max_ranges(model, p.span, n, p.align, p.overlap);
    const double makespan = reference_lpt(predicted_costs(model, ranges, p.overlap), p.workers);
    if (best.empty() || makespan < best_makespan) {
      best_makespan = makespan;
      best = std::move(ranges);
    }
  }
  return best;
}

// The candidates built on `threads` threads, thread t taking every threads-th from the last down
// (so later counts finish first), then joined.
Partition on_threads(const PartitionParams& params, unsigned threads) {
  const Partitioner& optimal = find_partitioner("optimal");
  std::vector<Candidate> candidates(optimal.candidates(params));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t i = candidates.size() - 1 - t; i < candidates.size(); i -= threads) {
        candidates[i] = optimal.candidate(params, i);
      }
    });
  }
  for (std::thread& thread : pool) thread.join();
  return chosen_partition("optimal", params, std::move(candidates));
}

// The span [0, units) of `model` cut for `workers` workers.
PartitionParams params_on(const data::CostModel& model, std::int64_t units, int workers) {
  PartitionParams params;
  params.span = {0, units};
  params.workers = workers;
  params.model = &model;
  return params;
}

TEST(OptimalCandidates, OnTwoThreadsChooseWhatTheSequentialPathAndTheReferenceChoose) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<data::CostBin> bins;
    const int n_bins = 3 + static_cast<int>(rng() % 6);
    for (int b = 0; b < n_bins; ++b) {
      bins.push_back({{b * 100, 100}, static_cast<double>(rng() % 50), 1 + static_cast<double>(rng() % 20)});
    }
    const data::CostModel model(bins);
    PartitionParams params;
    params.model = &model;
    params.overlap = static_cast<std::int64_t>(rng() % 3);
    params.span = {params.overlap, n_bins * 100 - params.overlap};
    params.workers = 1 + static_cast<int>(rng() % 6);
    params.align = std::int64_t{1} << (rng() % 4);
    const Partition sequential = make_partition("optimal", params);
    EXPECT_EQ(sequential.ranges, reference_optimal(model, params)) << "trial " << trial;
    for (unsigned threads : {2u, 3u}) {
      const Partition parallel = on_threads(params, threads);
      EXPECT_EQ(parallel.ranges, sequential.ranges) << "trial " << trial << ", " << threads << " threads";
      EXPECT_EQ(parallel.overlap, params.overlap);
    }
  }
}

TEST(OptimalCandidates, EqualMakespansGoToTheFewestRanges) {
  // 16 units of 1 s on 4 workers, counts 4, 5, 6, 8, 12, 16 (then capped at 16): at most 5 ranges
  // of <= 3 s cannot cover 16 s, so 4 and 5 give the same 4 ranges of 4 s; 6 gives six of <= 3 s
  // (6 s on 4 workers); 8 and 12 give eight of 2 s, 16 sixteen of 1 s: all but 6 finish in 4 s.
  const data::CostModel model({{{0, 16}, 0, 1e6}});
  const PartitionParams params = params_on(model, 16, 4);
  const Partitioner& optimal = find_partitioner("optimal");
  ASSERT_EQ(optimal.candidates(params), 6u);
  std::vector<std::size_t> counts;
  std::vector<double> makespans;
  for (std::size_t i = 0; i < optimal.candidates(params); ++i) {
    const Candidate c = optimal.candidate(params, i);
    counts.push_back(c.partition.ranges.size());
    makespans.push_back(c.score);
  }
  EXPECT_EQ(counts, (std::vector<std::size_t>{4, 4, 6, 8, 8, 16}));
  EXPECT_EQ(makespans, (std::vector<double>{4e6, 4e6, 6e6, 4e6, 4e6, 4e6}));
  const std::vector<data::Range> four{{0, 4}, {4, 4}, {8, 4}, {12, 4}};
  EXPECT_EQ(make_partition("optimal", params).ranges, four);
  EXPECT_EQ(on_threads(params, 2).ranges, four);
}

TEST(OptimalCandidates, BestCandidateIsTheFirstLowestScore) {
  const auto candidate = [](std::int64_t count, double score) { return Candidate{{{{0, count}}, 0}, score}; };
  EXPECT_EQ(best_candidate({candidate(1, 3), candidate(2, 2), candidate(3, 2), candidate(4, 5)}).ranges[0].count, 2);
  EXPECT_EQ(best_candidate({candidate(7, 1)}).ranges[0].count, 7);
}

TEST(OptimalCandidates, AFixedRangeCountIsOneCandidate) {
  const data::CostModel model({{{0, 100}, 0, 1}});
  PartitionParams params = params_on(model, 100, 4);
  params.ranges = 5;
  const Partitioner& optimal = find_partitioner("optimal");
  ASSERT_EQ(optimal.candidates(params), 1u);
  EXPECT_EQ(optimal.candidate(params, 0).partition.ranges.size(), 5u);
}

// Each multiple of the worker count once: a count rounding to the one before is skipped, not
// the end of the list (2 workers once tried only 2 and 3 ranges), and the span's capacity caps them.
TEST(OptimalCandidates, FewWorkersStillTryUpToSixteenRangesEach) {
  const data::CostModel model({{{0, 1000}, 0, 1}});
  const Partitioner& optimal = find_partitioner("optimal");
  const auto counts = [&](std::int64_t units, int workers) {
    const PartitionParams params = params_on(model, units, workers);
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < optimal.candidates(params); ++i) {
      out.push_back(optimal.candidate(params, i).partition.ranges.size());
    }
    return out;
  };
  EXPECT_EQ(counts(1000, 2), (std::vector<std::size_t>{2, 3, 4, 6, 8, 12, 16, 24, 32}));
  EXPECT_EQ(counts(1000, 1), (std::vector<std::size_t>{1, 2, 3, 4, 6, 8, 12, 16}));
  EXPECT_EQ(optimal.candidates(params_on(model, 5, 2)), 4u);  // 2, 3, 4, then 5 (the capacity) once
}

TEST(OptimalCandidates, ACandidateOfRefusedParametersSaysWhy) {
  const data::CostModel model({{{0, 100}, 0, 1}});
  const PartitionParams good = params_on(model, 100, 4);
  const auto problem = [](const PartitionParams& params) -> std::string {
    const Partitioner& optimal = find_partitioner("optimal");
    EXPECT_GE(optimal.candidates(params), 1u);
    try {
      optimal.candidate(params, 0);
    } catch (const data::Error& e) {
      return e.what();
    }
    return "no error";
  };
  PartitionParams p = good;
  p.workers = 0;
  EXPECT_THAT(problem(p), HasSubstr("optimal: needs a worker count >= 1"));
  p = good;
  p.align = 0;
  EXPECT_THAT(problem(p), HasSubstr("alignment must be at least 1 (got 0)"));
  p = good;
  p.model = nullptr;
  EXPECT_THAT(problem(p), HasSubstr("needs a cost model"));
}

}  // namespace
}  // namespace millrace::partitioners
