// Cost model evaluation, the inner call of every partitioner and of replays on a new partition:
// predict() of random ranges and furthest_end() (the partitioners' "how far does this budget
// reach") on a 10^6-bin model whose bins share one width (O(1) bin lookup) and on a 10^5-bin
// model of unequal widths (binary search), measured in the same run.
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "data/cost_model.h"

namespace millrace::data {
namespace {

constexpr std::int64_t kUnits = 1'000'000;

CostModel make_model(bool equal_widths) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> density(3, 1.5);
  std::uniform_int_distribution<std::int64_t> width(1, 19);
  std::vector<CostBin> bins;
  for (std::int64_t u = 0; u < kUnits;) {
    std::int64_t w = equal_widths ? 1 : std::min(width(rng), kUnits - u);
    bins.push_back({{u, w}, 5e6, density(rng)});
    u += w;
  }
  return CostModel(std::move(bins));
}

const CostModel& model(bool equal_widths) {
  static const CostModel equal = make_model(true);
  static const CostModel unequal = make_model(false);
  return equal_widths ? equal : unequal;
}

std::vector<Range> random_ranges() {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> first(0, kUnits - 20'000);
  std::uniform_int_distribution<std::int64_t> count(1, 16'000);
  std::vector<Range> ranges(1 << 16);
  for (Range& r : ranges) r = {first(rng), count(rng)};
  return ranges;
}

void BM_CostModelPredict(benchmark::State& state) {
  const CostModel& m = model(state.range(0) == 1);
  std::vector<Range> ranges = random_ranges();
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(m.predict(ranges[i++ & 0xffff]));
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) == 1 ? "equal widths" : "unequal widths");
}
BENCHMARK(BM_CostModelPredict)->Arg(1)->Arg(0);

void BM_CostModelFurthestEnd(benchmark::State& state) {
  const CostModel& m = model(state.range(0) == 1);
  std::vector<Range> ranges = random_ranges();
  std::size_t i = 0;
  for (auto _ : state) {
    const Range& r = ranges[i++ & 0xffff];
    benchmark::DoNotOptimize(m.furthest_end(r.first, static_cast<double>(r.count) * 40.0, kUnits));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) == 1 ? "equal widths" : "unequal widths");
}
BENCHMARK(BM_CostModelFurthestEnd)->Arg(1)->Arg(0);

}  // namespace
}  // namespace millrace::data

BENCHMARK_MAIN();
