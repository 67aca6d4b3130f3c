// Partitioner speed on a 10^6-unit profile (one bin per unit, seeded random densities):
// `optimal` into 4,000 ranges (target < 100 ms) against `uniform` and `cost-balanced` on
// the same profile in the same run, and `optimal` choosing its range count for 1,000 workers.
#include <random>

#include <benchmark/benchmark.h>

#include "partitioners/registry.h"

namespace {

using millrace::data::CostBin;
using millrace::data::CostModel;
using millrace::partitioners::make_partition;
using millrace::partitioners::PartitionParams;

constexpr std::int64_t kUnits = 1'000'000;

const CostModel& profile() {
  static const CostModel model = [] {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> density(3, 1.5);
    std::vector<CostBin> bins;
    bins.reserve(kUnits);
    for (std::int64_t u = 0; u < kUnits; ++u) bins.push_back({{u, 1}, 5e6, density(rng)});
    return CostModel(std::move(bins));
  }();
  return model;
}

PartitionParams params(std::int64_t ranges, int workers) {
  PartitionParams p;
  p.span = {0, kUnits};
  p.model = &profile();
  p.ranges = ranges;
  p.workers = workers;
  p.align = 64;
  p.overlap = 320;
  return p;
}

void run(benchmark::State& state, const char* name, const PartitionParams& p) {
  for (auto _ : state) {
    auto partition = make_partition(name, p);
    benchmark::DoNotOptimize(partition.ranges.data());
    state.counters["ranges"] = static_cast<double>(partition.ranges.size());
  }
}

void BM_Uniform4000(benchmark::State& state) { run(state, "uniform", params(4000, 0)); }
void BM_CostBalanced4000(benchmark::State& state) { run(state, "cost-balanced", params(4000, 0)); }
void BM_Optimal4000(benchmark::State& state) { run(state, "optimal", params(4000, 0)); }
void BM_OptimalChooseCount1000Workers(benchmark::State& state) { run(state, "optimal", params(0, 1000)); }

BENCHMARK(BM_Uniform4000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CostBalanced4000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Optimal4000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptimalChooseCount1000Workers)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
