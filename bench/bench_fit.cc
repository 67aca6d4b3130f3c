// The cost-model fit: the default fit at the recording's own resolution (bins at the recorded
// boundaries, smoothness penalty chosen by blocked cross-validation, sparse non-negative solve)
// against the old default (32 equal bins, dense NNLS) in the same run, on the bundled Stellar
// catch-up recording (3,396 ranges) and on seeded synthetic recordings of 10^3 to 10^5 ranges of
// varied lengths. `peak_rss_MiB` is the process's peak so far (getrusage); sizes run in
// ascending order, so each row's peak bounds that size's memory.
#include <sys/resource.h>

#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "data/cost_model_fit.h"
#include "data/importers/stellar_log_importer.h"
#include "data/synthetic_recording.h"

namespace millrace::data {
namespace {

const std::vector<Observation>& bundled() {
  static const std::vector<Observation> observations = [] {
    const importers::Trace trace =
        importers::read_stellar_log(std::string(MILLRACE_SOURCE_DIR) + "/data/sets/stellar-pcv2-2024-11/stellar-supercluster.log");
    return observations_of(trace.items, trace.attempts);
  }();
  return observations;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void fit(benchmark::State& state, const std::vector<Observation>& observations, int bins) {
  FitOptions options;
  options.bins = bins;
  for (auto _ : state) {
    const FitReport report = fit_cost_model(observations, options, "bench");
    benchmark::DoNotOptimize(report.joint.cv_rmse_s);
    state.counters["bins"] = static_cast<double>(report.model.bins().size());
  }
  state.counters["ranges"] = static_cast<double>(observations.size());
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

// Arg: bins (0: the recording's own resolution, the default).
void BM_FitBundled(benchmark::State& state) { fit(state, bundled(), static_cast<int>(state.range(0))); }
BENCHMARK(BM_FitBundled)->Arg(32)->Arg(0)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

// Arg: ranges of a synthetic recording (varied lengths, 5% gaps, 5% log-normal noise).
void BM_FitSynthetic(benchmark::State& state) {
  const auto ranges = state.range(0);
  SyntheticRecordingOptions options;
  options.mean_length = 1'000;
  options.span = {0, ranges * options.mean_length};
  options.varied_lengths = true;
  options.gap_probability = 0.05;
  const std::vector<Observation> observations =
      synthetic_recording(smooth_truth(options.span, static_cast<int>(std::min<std::int64_t>(ranges * 4, 400'000))), options);
  fit(state, observations, 0);
}
BENCHMARK(BM_FitSynthetic)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->Iterations(1);

}  // namespace
}  // namespace millrace::data

BENCHMARK_MAIN();
